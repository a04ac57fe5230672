package sidecar

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// The upstream pool lets an idle connection go before the servers it fronts
// do (Node's HTTP server closes one idle for 5 s), so that it never sends a
// request on a connection the server is closing; an upstream that closes
// sooner gets a shorter time from Config.UpstreamIdleTimeout.
func TestUpstreamConnectionsGoBeforeTheServerClosesThem(t *testing.T) {
	idleOf := func(cfg Config) time.Duration {
		t.Helper()
		cfg.Upstream, cfg.ProbeInterval = "http://127.0.0.1:1/mcp", -1
		p, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		tr, ok := p.transport.(*http.Transport)
		if !ok {
			t.Fatalf("the default upstream transport is a %T", p.transport)
		}
		return tr.IdleConnTimeout
	}
	if idle := idleOf(Config{}); idle <= 0 || idle >= 5*time.Second {
		t.Errorf("by default idle upstream connections are kept %s: want more than 0 and less than Node's 5 s", idle)
	}
	if idle := idleOf(Config{UpstreamIdleTimeout: 1500 * time.Millisecond}); idle != 1500*time.Millisecond {
		t.Errorf("UpstreamIdleTimeout 1.5s: idle upstream connections are kept %s", idle)
	}
	mine := &http.Transport{}
	p, err := New(Config{Upstream: "http://127.0.0.1:1/mcp", ProbeInterval: -1, Transport: mine, UpstreamIdleTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.transport != mine || mine.IdleConnTimeout != 0 {
		t.Errorf("a Transport of the caller's was replaced or changed (IdleConnTimeout %s)", mine.IdleConnTimeout)
	}
}

// The pool closes an idle connection by itself: the upstream here never
// closes one, and still sees the proxy's connection closed after a request,
// then a new one for the next request.
func TestIdleUpstreamConnectionIsClosedByTheProxy(t *testing.T) {
	var mu sync.Mutex
	opened, closed := 0, make(chan struct{}, 16)
	up := httptest.NewUnstartedServer(sidecartest.New().Handler())
	up.Config.IdleTimeout = time.Hour
	up.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			mu.Lock()
			opened++
			mu.Unlock()
		case http.StateClosed:
			closed <- struct{}{}
		}
	}
	up.Start()
	t.Cleanup(up.Close)
	_, proxy := startProxy(t, up.URL, func(c *Config) { c.UpstreamIdleTimeout = 50 * time.Millisecond })

	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	headers := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	rawPost(t, proxy.URL+sidecartest.Path, ping, headers)
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Fatal("the proxy's idle upstream connection was not closed")
	}
	rawPost(t, proxy.URL+sidecartest.Path, ping, headers)
	mu.Lock()
	defer mu.Unlock()
	if opened != 2 {
		t.Errorf("the upstream saw %d connections opened for two requests with the first one closed in between: want 2", opened)
	}
}
