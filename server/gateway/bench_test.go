package gateway_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/export"
	"github.com/thoughtbox-bench/tbbench/server/gateway"
	"github.com/thoughtbox-bench/tbbench/server/ledger"
	"github.com/thoughtbox-bench/tbbench/server/sessions"
	"github.com/thoughtbox-bench/tbbench/server/storage/memstore"
)

// BenchmarkCall measures one gateway call without transport, the way the
// MCP wiring makes it: the tool's raw arguments in, a reply out. The mix is
// that of BenchmarkCeiling: nine thoughts, then a read_thoughts.
func BenchmarkCall(b *testing.B) {
	store := memstore.New()
	g := gateway.New(store, sessions.New(store))
	c := gateway.NewConn(ledger.New(&ledger.Config{Store: store, Exports: export.Writer{Dir: b.TempDir()}}, nil))
	ctx := context.Background()
	for _, call := range []string{`{"operation":"start_new","args":{"newWork":{"project":"bench"}}}`, `{"operation":"cipher","args":{}}`} {
		if r := g.Call(ctx, c, json.RawMessage(call)); r.IsError {
			b.Fatal(r.FirstText())
		}
	}
	calls := make([]json.RawMessage, 10)
	for i := range 9 {
		calls[i] = json.RawMessage(`{"args":{"nextThoughtNeeded":true,"thought":"Step ` + strconv.Itoa(i) + `: the cache returns stale entries because the TTL is computed from the write time, not from the upstream change."},"operation":"thought"}`)
	}
	calls[9] = json.RawMessage(`{"args":{},"operation":"read_thoughts"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if r := g.Call(ctx, c, calls[i%len(calls)]); r.IsError {
			b.Fatal(r.FirstText())
		}
	}
}

// BenchmarkReadLastLongSession is read_thoughts {last: 5} through the
// gateway, without transport, on a session of 100,000 thoughts (the scale
// target: under 1 ms).
func BenchmarkReadLastLongSession(b *testing.B) {
	store := memstore.New()
	g := gateway.New(store, sessions.New(store))
	c := gateway.NewConn(ledger.New(&ledger.Config{Store: store, Exports: export.Writer{Dir: b.TempDir()}}, nil))
	ctx := context.Background()
	for _, call := range []string{`{"operation":"start_new","args":{"newWork":{"project":"bench"}}}`, `{"operation":"cipher","args":{}}`} {
		if r := g.Call(ctx, c, json.RawMessage(call)); r.IsError {
			b.Fatal(r.FirstText())
		}
	}
	thought := json.RawMessage(`{"args":{"nextThoughtNeeded":true,"thought":"a step of a long session"},"operation":"thought"}`)
	for range 100000 {
		if r := g.Call(ctx, c, thought); r.IsError {
			b.Fatal(r.FirstText())
		}
	}
	read := json.RawMessage(`{"args":{"last":5},"operation":"read_thoughts"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if r := g.Call(ctx, c, read); r.IsError {
			b.Fatal(r.FirstText())
		}
	}
}
