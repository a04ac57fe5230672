package sidecarfront_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/sidecarfront"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// The sidecar in front of a target keeps its upstream connections as long
// as the harness keeps its own (target.SetHTTPIdleTimeout). It probes the
// target every second, and the target here never closes a connection
// itself: with connections idle for 50 ms closed, every probe opens a new
// one (with the default 4 s, the probes share one and none is opened).
func TestTheSidecarKeepsUpstreamConnectionsAsLongAsTheHarness(t *testing.T) {
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
	f, err := sidecarfront.Wrap(tg)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	base := opened.Load()
	for opened.Load() < base+3 {
		select {
		case <-ctx.Done():
			t.Fatalf("%d upstream connections opened by the sidecar's probes in a minute: its idle connections are kept longer than the harness's 50 ms", opened.Load()-base)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
