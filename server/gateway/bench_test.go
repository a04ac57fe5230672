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
