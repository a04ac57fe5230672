// Package targettest holds what the harness's tests of targets share.
package targettest

import (
	"context"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// NeverIdlingTarget makes the harness close its HTTP connections once idle
// for idle (target.SetHTTPIdleTimeout), and returns an HTTP target of a
// sidecartest server that never closes an idle connection itself and counts
// those opened to it: for tests of how long a part of the harness keeps its
// idle connections. The server, the target and the idle time are restored
// when the test ends.
func NeverIdlingTarget(t *testing.T, ctx context.Context, idle time.Duration) (*sidecartest.CountingServer, target.Target) {
	t.Helper()
	up := sidecartest.StartCounting(sidecartest.New().Handler())
	t.Cleanup(up.Close)
	target.SetHTTPIdleTimeout(idle)
	t.Cleanup(func() { target.SetHTTPIdleTimeout(0) })
	tg, err := target.NewURL(ctx, up.URL+sidecartest.Path, target.URLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return up, tg
}
