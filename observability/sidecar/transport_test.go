package sidecar

import (
	"testing"
	"time"
)

// The upstream pool lets an idle connection go before the servers it fronts
// do (Node's HTTP server closes one idle for 5 s), so that it never sends a
// request on a connection the server is closing.
func TestUpstreamConnectionsGoBeforeTheServerClosesThem(t *testing.T) {
	if idle := newTransport().IdleConnTimeout; idle <= 0 || idle >= 5*time.Second {
		t.Errorf("idle upstream connections are kept %s: want more than 0 and less than Node's 5 s", idle)
	}
}
