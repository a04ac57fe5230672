package security

import (
	"context"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target/targettest"
)

// The sidecar the telemetry checks put in front of a target keeps its
// upstream connections as long as the harness keeps its own
// (target.SetHTTPIdleTimeout, tbbench --http-idle-timeout). The target here
// never closes a connection itself: with connections idle for 50 ms
// closed, requests 100 ms apart each open a new one (with the default 4 s
// they share one, and the test runs into its deadline).
func TestTheTelemetrySidecarKeepsUpstreamConnectionsAsLongAsTheHarness(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	up, tg := targettest.NeverIdlingTarget(t, ctx, 50*time.Millisecond)
	e := &env{tg: tg}
	s, err := startSidecar(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	ping := func() { s.post(ctx, e, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil) }
	if n, ok := up.AwaitOpened(ctx, 2, 100*time.Millisecond, ping); !ok {
		t.Fatalf("%d upstream connections opened by the sidecar in a minute: its idle connections are kept longer than the harness's 50 ms", n)
	}
}
