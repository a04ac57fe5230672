package security

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// The sidecar the telemetry checks put in front of a target keeps its
// upstream connections as long as the harness keeps its own
// (target.SetHTTPIdleTimeout, tbbench --http-idle-timeout). The target here
// never closes a connection itself: with connections idle for 50 ms
// closed, requests 100 ms apart each open a new one (with the default 4 s
// they share one, and the test runs into its deadline).
func TestTheTelemetrySidecarKeepsUpstreamConnectionsAsLongAsTheHarness(t *testing.T) {
	var opened atomic.Int32
	up := httptest.NewUnstartedServer(sidecartest.New().Handler())
	up.Config.IdleTimeout = time.Hour
	up.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	up.Start()
	defer up.Close()
	target.SetHTTPIdleTimeout(50 * time.Millisecond)
	defer target.SetHTTPIdleTimeout(0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tg, err := target.NewURL(ctx, up.URL+sidecartest.Path, target.URLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	e := &env{tg: tg}
	s, err := startSidecar(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	base := opened.Load()
	for opened.Load() < base+2 {
		s.post(ctx, e, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil)
		select {
		case <-ctx.Done():
			t.Fatalf("%d upstream connections opened by the sidecar in a minute: its idle connections are kept longer than the harness's 50 ms", opened.Load()-base)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
