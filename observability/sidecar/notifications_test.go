package sidecar

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver/notifycheck"
)

// TestEveryNotificationRelayed checks that the reference server's progress
// and log notifications reach an mcp-go client through the proxy, every
// one of 10,000 and each ahead of its call's answer, over loopback TCP and
// through HandlerTransport, and that the proxy saw each one.
func TestEveryNotificationRelayed(t *testing.T) {
	const calls = notifycheck.Total / notifycheck.PerCall // 10,000 notifications without the race detector
	for name, inProcess := range map[string]bool{"network": false, "inprocess": true} {
		t.Run(name, func(t *testing.T) {
			var p *Proxy
			var px *httptest.Server
			if inProcess {
				h := newReference(t).Handler()
				p, px = startProxy(t, "http://127.0.0.1", func(c *Config) { c.Transport = HandlerTransport(h) })
			} else {
				p, px = startProxy(t, startReference(t).URL, nil)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			tally, err := notifycheck.Run(ctx, newClient(t, px.URL), calls)
			if err != nil {
				t.Fatal(err)
			}
			if msg := tally.Missing(calls); msg != "" {
				t.Error(msg)
			}
			seen := p.Counts().Notifications
			for _, method := range []string{"notifications/progress", "notifications/message"} {
				// The set-up calls log a message each too.
				if n := seen[Notification{Method: method, Direction: DirectionOut}]; n < calls {
					t.Errorf("the proxy saw %d %s, want at least %d", n, method, calls)
				}
			}
		})
	}
}
