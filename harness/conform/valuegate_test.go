package conform

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
)

// TestValueChecksWaitForTheSidecarsByteCount reads an answer of 5,000
// bytes while a fake sidecar's /metrics counts it only from its fourth
// reading on (the sidecar adds an answer's bytes once its write returned,
// which can be after the client read them): the bytes-out check waits for
// it and passes; against a count that never catches up, it fails.
func TestValueChecksWaitForTheSidecarsByteCount(t *testing.T) {
	body := strings.Repeat("a", 5000)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, body)
	}))
	defer server.Close()
	for _, c := range []struct {
		name       string
		countsFrom int32 // the reading from which the sidecar counts the answer
		pass       bool
	}{{"catches up", 4, true}, {"never catches up", 1 << 30, false}} {
		t.Run(c.name, func(t *testing.T) {
			var readings atomic.Int32
			metrics := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				out := 0
				if readings.Add(1) >= c.countsFrom {
					out = len(body)
				}
				fmt.Fprintf(w, "%s{direction=%q} 0\n%s{direction=%q} %d\n", promBytes, sidecar.DirectionIn, promBytes, sidecar.DirectionOut, out)
			}))
			defer metrics.Close()
			ctx := context.Background()
			g := &valueGate{metrics: metrics.URL, endpoint: server.URL}
			g.sent, g.received = target.WireBytes(g.endpoint)
			g.values, g.err = ReadSidecarValues(ctx, g.metrics)
			if _, err := target.RawHTTP(ctx, transcript.Discard(), server.URL+"/mcp", "POST", "", nil, ""); err != nil {
				t.Fatal(err)
			}
			var out *bool
			for _, ch := range g.checks(ctx, transcript.Counts{}, sidecar.Tools{}) {
				if ch.Name == "bytes out (server to client)" {
					out = &ch.Passed
					t.Log(ch.Detail)
				}
			}
			if out == nil || *out != c.pass {
				t.Errorf("bytes out passed: %v, want %v", out != nil && *out, c.pass)
			}
		})
	}
}
