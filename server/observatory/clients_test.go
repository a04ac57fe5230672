package observatory_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/thoughtbox-bench/tbbench/server/observatory"
)

// closeStatus reads until the connection ends and returns its close code
// and reason.
func closeStatus(t *testing.T, c *wsClient) (websocket.StatusCode, string) {
	t.Helper()
	for {
		_, err := c.read(10 * time.Second)
		if err == nil {
			continue
		}
		var ce websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code, ce.Reason
		}
		t.Fatalf("connection ended without a close frame: %v", err)
	}
}

// subscribed subscribes c to the observatory channel and waits for the
// answer, which proves the server has registered the connection.
func subscribed(c *wsClient) {
	c.t.Helper()
	c.send("observatory", "subscribe", nil)
	c.expectEvent("observatory", "subscribed")
	c.expectEvent("observatory", "sessions:active")
}

func TestFullServerClosesNewSocketWith1008(t *testing.T) {
	o, base := start(t, func(c *observatory.Config) { c.MaxConn = 2 })
	a, b := dial(t, base), dial(t, base)
	subscribed(a)
	subscribed(b)
	c := dial(t, base)
	if code, reason := closeStatus(t, c); code != websocket.StatusPolicyViolation || reason != "Server at maximum capacity" {
		t.Errorf("third client closed with %d %q, want 1008 Server at maximum capacity", code, reason)
	}
	if st := o.Stats(); st.Connections != 2 || st.RejectedConnections != 1 {
		t.Errorf("stats %+v, want 2 connections and 1 rejected", st)
	}
	// A slot freed is a slot taken.
	a.conn.Close(websocket.StatusNormalClosure, "")
	waitFor(t, func() bool { return o.Stats().Connections == 1 })
	subscribed(dial(t, base))
}

func TestGarbageSenderIsDisconnectedOthersStay(t *testing.T) {
	o, base := start(t, nil)
	good, bad := dial(t, base), dial(t, base)
	subscribed(good)
	for i := 0; i < 10; i++ {
		bad.sendRaw("\x00garbage")
	}
	for i := 0; i < 10; i++ {
		bad.expect(`["error","error",{"code":"INVALID_PAYLOAD","message":"Invalid JSON"}]`)
	}
	if code, reason := closeStatus(t, bad); code != websocket.StatusPolicyViolation || reason != "Too many invalid messages" {
		t.Errorf("garbage sender closed with %d %q", code, reason)
	}
	o.Emit(sessionStarted("s1", "still here"))
	good.expectEvent("observatory", "session:started")
	if st := o.Stats(); st.BadClients != 1 || st.Connections != 1 {
		t.Errorf("stats %+v, want 1 bad client and 1 connection left", st)
	}
}

// A valid frame between invalid ones resets the count: only a client that
// keeps sending garbage is disconnected.
func TestOccasionalGarbageIsForgiven(t *testing.T) {
	_, base := start(t, nil)
	c := dial(t, base)
	for i := 0; i < 15; i++ {
		c.sendRaw("{")
		c.expectEvent("error", "error")
		if i%5 == 4 {
			c.send("observatory", "list:active", nil)
			c.expectEvent("observatory", "sessions:active")
		}
	}
}

func TestOversizedFrameClosesWith1009(t *testing.T) {
	_, base := start(t, nil)
	c := dial(t, base)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.conn.Write(ctx, websocket.MessageText, []byte(`["observatory","list:active",{"pad":"`+strings.Repeat("x", 70<<10)+`"}]`))
	if code, _ := closeStatus(t, c); code != websocket.StatusMessageTooBig {
		t.Errorf("close code %d, want 1009", code)
	}
}

// readerAndSleeper starts an Observatory with change applied and two
// clients subscribed to "observatory": one that reads (returned) and one
// that never reads after subscribing; session "big" has started.
func readerAndSleeper(t *testing.T, change func(*observatory.Config)) (*observatory.Observatory, *wsClient) {
	t.Helper()
	o, base := start(t, change)
	reader, stuck := dial(t, base), dial(t, base)
	subscribed(reader)
	stuck.send("observatory", "subscribe", nil) // and never reads again
	waitFor(t, func() bool { return o.Stats().Connections == 2 })
	o.Emit(sessionStarted("big", "big thoughts"))
	reader.expectEvent("observatory", "session:started")
	return o, reader
}

// TestNeverReadingClientIsDropped: a client that never reads fills its
// queue and is dropped; a reading client gets every broadcast.
func TestNeverReadingClientIsDropped(t *testing.T) {
	o, reader := readerAndSleeper(t, func(c *observatory.Config) { c.ClientQueue = 4 })
	// One thought at a time, each read by the reader before the next: the
	// reader keeps up, the stuck client's socket and queue fill.
	text := strings.Repeat("x", 256<<10)
	const n = 200 // 50 MiB: far more than the socket buffers hold
	for i := 1; i <= n && o.Stats().SlowClients == 0; i++ {
		o.Emit(thought{n: i, total: n, text: text, next: true}.event("big"))
		reader.expectEvent("observatory", "thought:added")
	}
	// The reader still gets what follows.
	o.Emit(thought{n: n + 1, total: n, text: "after", next: true}.event("big"))
	reader.expectEvent("observatory", "thought:added")
	st := o.Stats()
	if st.SlowClients != 1 || st.Connections != 1 || st.DroppedEvents != 0 {
		t.Errorf("stats %+v, want the stuck client dropped, the reader kept, no event dropped", st)
	}
}

// TestStalledClientIsDroppedAfterTheWriteTimeout: a client that stops
// reading while its queue still has room is disconnected once a write has
// waited WriteTimeout, well before the default's 10 s.
func TestStalledClientIsDroppedAfterTheWriteTimeout(t *testing.T) {
	o, reader := readerAndSleeper(t, func(c *observatory.Config) { c.WriteTimeout = 300 * time.Millisecond })
	// 64 frames of 256 KiB: more than the socket buffers hold, fewer than
	// the client's queue of 256, so only the write timeout can end it.
	text := strings.Repeat("x", 256<<10)
	const n = 64
	start := time.Now()
	for i := 1; i <= n; i++ {
		o.Emit(thought{n: i, total: n, text: text, next: true}.event("big"))
		reader.expectEvent("observatory", "thought:added")
	}
	for o.Stats().Connections != 1 {
		if time.Since(start) > 8*time.Second {
			t.Fatalf("the stalled client is still connected after %s with a write timeout of 300ms: %+v", time.Since(start).Round(time.Millisecond), o.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	o.Emit(thought{n: n + 1, total: n, text: "after", next: true}.event("big"))
	reader.expectEvent("observatory", "thought:added")
	if st := o.Stats(); st.WriteFailures != 1 || st.SlowClients != 0 || st.DroppedEvents != 0 {
		t.Errorf("stats %+v, want one write failure (the stalled client), no full queue, no event dropped", st)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
