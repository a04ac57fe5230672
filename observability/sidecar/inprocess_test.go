package sidecar

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// TestHandlerTransportTransparent runs the client scenario through a proxy
// whose upstream is an in-process handler: same wire as direct.
func TestHandlerTransportTransparent(t *testing.T) {
	direct := startUpstream(t)
	directWire, directGot := scenario(t, direct.URL)

	h := sidecartest.New().Handler()
	p, px := startProxy(t, "http://127.0.0.1", func(c *Config) { c.Transport = HandlerTransport(h) })
	proxyWire, proxyGot := scenario(t, px.URL)
	if fmt.Sprint(directGot) != fmt.Sprint(proxyGot) {
		t.Errorf("results differ:\ndirect: %v\nproxy:  %v", directGot, proxyGot)
	}
	if fmt.Sprint(directWire) != fmt.Sprint(proxyWire) {
		t.Errorf("wire differs:\ndirect: %v\nproxy:  %v", directWire, proxyWire)
	}
	if p.Counts().Method("tools/call") != 9 {
		t.Errorf("tools/call counted %d, want 9", p.Counts().Method("tools/call"))
	}
}

// TestHandlerTransportPanic turns a panicking handler into a broken
// exchange, not a crash.
func TestHandlerTransportPanic(t *testing.T) {
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })
	p, px := startProxy(t, "http://127.0.0.1", func(c *Config) { c.Transport = HandlerTransport(h) })
	resp, body := rawPost(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, `"id":1`) {
		t.Errorf("got %d %s", resp.StatusCode, body)
	}
	wantCount(t, p.Counts(), "ping", outcome.Error, 1)
}

// TestHandlerTransportAbandoned checks that a request given up before the
// handler answered neither hangs the caller nor leaks a blocked handler.
func TestHandlerTransportAbandoned(t *testing.T) {
	release := make(chan struct{})
	finished := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		_, err := w.Write([]byte("data: late\n\n"))
		finished <- err
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1/mcp", nil)
	errc := make(chan error, 1)
	go func() {
		_, err := HandlerTransport(h).RoundTrip(req)
		errc <- err
	}()
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("RoundTrip succeeded after its context ended")
	}
	close(release)
	select {
	case err := <-finished:
		if err == nil {
			t.Error("the abandoned handler's write succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the abandoned handler is stuck writing")
	}
}
