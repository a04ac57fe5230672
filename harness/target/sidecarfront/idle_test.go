package sidecarfront_test

import (
	"context"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target/sidecarfront"
	"github.com/thoughtbox-bench/tbbench/harness/target/targettest"
)

// The sidecar in front of a target keeps its upstream connections as long
// as the harness keeps its own (target.SetHTTPIdleTimeout). It probes the
// target every second, and the target here never closes a connection
// itself: with connections idle for 50 ms closed, every probe opens a new
// one (with the default 4 s, the probes share one and none is opened).
func TestTheSidecarKeepsUpstreamConnectionsAsLongAsTheHarness(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	up, tg := targettest.NeverIdlingTarget(t, ctx, 50*time.Millisecond)
	f, err := sidecarfront.Wrap(tg)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, ok := up.AwaitOpened(ctx, 3, 20*time.Millisecond, nil); !ok {
		t.Fatalf("%d upstream connections opened by the sidecar's probes in a minute: its idle connections are kept longer than the harness's 50 ms", n)
	}
}
