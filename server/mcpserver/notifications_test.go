package mcpserver_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver/notifycheck"
)

// notificationCalls makes notifycheck.Total notifications (10,000 without
// the race detector): a progress notification and a log message per call.
const notificationCalls = notifycheck.Total / notifycheck.PerCall

// TestEveryNotificationDelivered checks that the gateway's progress and log
// notifications reach an mcp-go client, every one of 10,000 and each before
// its call's answer, over Streamable HTTP (where mcp-go's transport alone can
// drop one it dequeued when the request ends first) and over stdio.
func TestEveryNotificationDelivered(t *testing.T) {
	for name, dial := range map[string]func(t *testing.T) *mcpClient{
		"http": func(t *testing.T) *mcpClient {
			_, url := newHTTPServer(t, testConfig(t, "memory"))
			return dialHTTP(t, url)
		},
		"stdio": func(t *testing.T) *mcpClient { return dialStdio(t, "THOUGHTBOX_STORAGE=memory") },
	} {
		t.Run(name, func(t *testing.T) {
			m := dial(t)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			tally, err := notifycheck.Run(ctx, m.c, notificationCalls)
			if err != nil {
				t.Fatal(err)
			}
			if msg := tally.Missing(notificationCalls); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// TestNoNotificationsUnasked checks that a client that asks for neither
// progress nor log messages at info gets no notification from a call.
func TestNoNotificationsUnasked(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	m := dialHTTP(t, url)
	var got atomic.Int32
	m.c.OnNotification(func(mcp.JSONRPCNotification) { got.Add(1) })
	m.ready()
	m.gateway("thought", map[string]any{"thought": "quiet", "nextThoughtNeeded": true})
	m.gateway("no_such_operation", nil)
	if n := got.Load(); n != 0 {
		t.Errorf("%d notifications without a progress token or log level", n)
	}
}
