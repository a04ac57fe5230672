package sidecarfront_test

import (
	"context"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/sidecarfront"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// TestAHopInMemoryNeedsNoSocket checks Options.HopInMemory: with the
// proxy's listener closed, a session dialed through the front still reaches
// the server through the proxy, which counts its calls, and the harness
// counts the bodies; without the option it cannot connect.
func TestAHopInMemoryNeedsNoSocket(t *testing.T) {
	for _, inMemory := range []bool{true, false} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		inner, err := embedded.New(ctx, embedded.Options{Storage: "memory"})
		if err != nil {
			t.Fatal(err)
		}
		f, err := sidecarfront.WrapWith(inner, sidecarfront.Options{HopInMemory: inMemory})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.CloseListener(); err != nil {
			t.Fatal(err)
		}
		sent0, received0 := target.WireBytes(f.HTTPBase())
		c, err := target.Connect(ctx, f, transcript.Discard(), target.ConnOptions{})
		if !inMemory {
			if err == nil {
				c.Close()
				t.Fatal("a session reached a proxy whose listener is closed without the hop in memory")
			}
			continue
		}
		if err != nil {
			t.Fatalf("a hop in memory: %v", err)
		}
		res, err := c.Gateway(ctx, "get_state", nil)
		c.Close()
		if err != nil || res.IsError {
			t.Fatalf("get_state through the hop in memory: %v %s", err, res.Text())
		}
		if n := f.Counts().Method("tools/call"); n != 1 {
			t.Errorf("the proxy counted %d tools/call, want 1", n)
		}
		// The bodies are counted as over a socket.
		if sent, received := target.WireBytes(f.HTTPBase()); sent <= sent0 || received <= received0 {
			t.Errorf("the harness counted %d bytes sent and %d received over the hop in memory", sent-sent0, received-received0)
		}
	}
}
