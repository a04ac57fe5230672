package mcpserver_test

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTwoServersShareADataDir runs two servers on one data directory, as
// two stdio clients each starting their own would. A session made on A is
// visible on B without a restart; while A writes it, B's load_context is
// refused naming A's pid (two writers lost acknowledged thoughts before);
// once A lets go, B continues the numbering; a third server configured to
// wait gets the session as soon as it is free. After a restart every
// acknowledged thought is there.
func TestTwoServersShareADataDir(t *testing.T) {
	dir := t.TempDir()
	cmdA, urlA := startChild(t, dir)
	cmdB, urlB := startChild(t, dir)
	a := dialHTTP(t, urlA)
	a.ready()
	sid := a.gateway("thought", map[string]any{"thought": "one", "nextThoughtNeeded": true}).JSON(t)["sessionId"].(string)

	b := dialHTTP(t, urlB)
	if r := b.gateway("list_sessions", nil); !strings.Contains(r.Text, "Found 1 sessions") {
		t.Fatalf("a session made on A is not listed on B: %s", r.Text)
	}
	busy := b.gateway("load_context", map[string]any{"sessionId": sid})
	if !busy.IsError || !strings.Contains(busy.Text, fmt.Sprintf("open in another thoughtbox process (pid %d)", cmdA.Process.Pid)) {
		t.Fatalf("load_context on B while A writes: %+v", busy)
	}

	a.gateway("start_new", map[string]any{"newWork": map[string]any{"project": "tests"}})
	if r := b.gateway("load_context", map[string]any{"sessionId": sid}); r.IsError {
		t.Fatalf("load_context on B after A let go: %s", r.Text)
	}
	b.gateway("cipher", nil)
	if n := b.gateway("thought", map[string]any{"thought": "two", "nextThoughtNeeded": true}).JSON(t)["thoughtNumber"]; n != 2.0 {
		t.Fatalf("B numbered its thought %v, want 2", n)
	}
	if r := a.gateway("load_context", map[string]any{"sessionId": sid}); !r.IsError || !strings.Contains(r.Text, fmt.Sprintf("pid %d", cmdB.Process.Pid)) {
		t.Fatalf("load_context on A while B writes: %+v", r)
	}
	b.gateway("start_new", map[string]any{"newWork": map[string]any{"project": "tests"}})
	if r := a.gateway("load_context", map[string]any{"sessionId": sid}); r.IsError {
		t.Fatalf("load_context on A after B let go: %s", r.Text)
	}
	if n := a.gateway("thought", map[string]any{"thought": "three", "nextThoughtNeeded": true}).JSON(t)["thoughtNumber"]; n != 3.0 {
		t.Fatalf("A numbered its thought %v after B's, want 3", n)
	}

	// A server that waits for the lock gets the session once A closes it.
	cmdC, urlC := startChildEnv(t, dir, nil, "THOUGHTBOX_LOCK_WAIT=20s")
	c := dialHTTP(t, urlC)
	go func() {
		time.Sleep(300 * time.Millisecond)
		a.gateway("thought", map[string]any{"thought": "four, the last", "nextThoughtNeeded": false})
	}()
	start := time.Now()
	if r := c.gateway("load_context", map[string]any{"sessionId": sid}); r.IsError {
		t.Fatalf("waiting load_context on C: %s", r.Text)
	}
	if waited := time.Since(start); waited < 200*time.Millisecond {
		t.Errorf("C did not wait for A (%v)", waited)
	}
	c.gateway("cipher", nil)
	if n := c.gateway("thought", map[string]any{"thought": "five", "nextThoughtNeeded": true}).JSON(t)["thoughtNumber"]; n != 5.0 {
		t.Fatalf("C numbered its thought %v, want 5", n)
	}

	for _, cmd := range []*exec.Cmd{cmdA, cmdB, cmdC} {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}
	_, urlD := startChild(t, dir)
	d := dialHTTP(t, urlD)
	d.ready()
	got := d.gateway("session", map[string]any{"operation": "get", "sessionId": sid}).Text
	for _, want := range []string{`"thought": "one"`, `"thought": "two"`, `"thought": "three"`, `"thought": "four, the last"`, `"thought": "five"`} {
		if !strings.Contains(got, want) {
			t.Errorf("after the restart the session lacks %s:\n%s", want, got)
		}
	}
	if stale, _ := staleLinks(t, dir); len(stale) > 0 {
		t.Errorf("stale links on disk: %v", stale)
	}
}
