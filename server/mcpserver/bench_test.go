package mcpserver_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// BenchmarkHTTPThought measures one MCP session recording thoughts back to
// back over Streamable HTTP on loopback (mcp-go client, JSON responses) and
// reports the median and 99th-percentile latency per call.
func BenchmarkHTTPThought(b *testing.B) {
	for _, storage := range []string{"memory", "fs"} {
		b.Run(storage, func(b *testing.B) {
			call := benchSession(b, storage)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				call("thought", map[string]any{"thought": fmt.Sprintf("Step %d: the cache returns stale entries because the TTL is computed from the write time.", i), "nextThoughtNeeded": true})
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			reportLatency(b, lat)
		})
	}
}

// BenchmarkHTTPReadLastLongSession records one reasoning session of
// 100,000 thoughts over MCP (not timed), then measures read_thoughts
// {last: 5} on it over Streamable HTTP on loopback. Target: < 1 ms.
//
//	go test -run '^$' -bench HTTPReadLastLongSession -benchtime 2000x ./server/mcpserver
func BenchmarkHTTPReadLastLongSession(b *testing.B) {
	const thoughts = 100_000
	for _, storage := range []string{"memory", "fs"} {
		b.Run(storage, func(b *testing.B) {
			call := benchSession(b, storage)
			for i := 1; i <= thoughts; i++ {
				call("thought", map[string]any{"thought": fmt.Sprintf("Step %d: the cache returns stale entries because the TTL is computed from the write time.", i),
					"nextThoughtNeeded": true, "thoughtNumber": i, "totalThoughts": thoughts})
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				call("read_thoughts", map[string]any{"last": 5})
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			reportLatency(b, lat)
		})
	}
}

// benchSession starts the reference server with storage over HTTP on
// loopback and an MCP session at stage cipher_loaded, and returns a
// function that calls a gateway operation in it (failing b on an error).
func benchSession(b *testing.B, storage string) func(op string, args any) {
	cfg := mcpserver.Defaults()
	cfg.Storage, cfg.DataDir, cfg.DisableThoughtLogging = storage, b.TempDir(), true
	srv, err := mcpserver.New(cfg, mcpserver.WithLogger(discardLogger()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler()}
	go hs.Serve(ln)
	b.Cleanup(func() { hs.Close() })
	c, err := client.NewStreamableHttpClient("http://"+ln.Addr().String()+mcpserver.MCPPath, transport.WithHTTPLogger(discardLogger()))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatal(err)
	}
	call := func(op string, args any) {
		req := mcp.CallToolRequest{}
		req.Params.Name = "thoughtbox_gateway"
		req.Params.Arguments = map[string]any{"operation": op, "args": args}
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", op, err, res)
		}
	}
	call("start_new", map[string]any{"newWork": map[string]any{"project": "bench"}})
	call("cipher", map[string]any{})
	return call
}

// reportLatency reports the median and 99th percentile of lat.
func reportLatency(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
