package mcpserver_test

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// TestTwoServersShareADataDir runs two servers on one data directory, as
// two stdio clients each starting their own would, and has both continue
// one session in turns (both used to answer thoughtNumber 2, and one of the
// two thoughts was lost). A session made on A is visible on B without a
// restart; each thought takes the session over and reads what the other
// wrote, so the numbering continues; a server configured not to wait is
// refused while the other writes, with the writer's pid. After a restart
// every acknowledged thought is there and the files link up.
func TestTwoServersShareADataDir(t *testing.T) {
	dir := t.TempDir()
	cmdA, urlA := startChild(t, dir)
	cmdB, urlB := startChild(t, dir)
	a := dialHTTP(t, urlA)
	a.ready()
	sid := a.gateway("thought", map[string]any{"thought": "A 1", "nextThoughtNeeded": true}).JSON(t)["sessionId"].(string)

	b := dialHTTP(t, urlB)
	if r := b.gateway("list_sessions", nil); !strings.Contains(r.Text, "Found 1 sessions") {
		t.Fatalf("a session made on A is not listed on B: %s", r.Text)
	}
	if r := b.gateway("load_context", map[string]any{"sessionId": sid}); r.IsError {
		t.Fatalf("load_context on B: %s", r.Text)
	}
	b.gateway("cipher", nil)
	want := 1.0
	var texts []string
	for i := 0; i < 20; i++ {
		m, name := a, "A"
		if i%2 == 0 {
			m, name = b, "B"
		}
		text := fmt.Sprintf("%s %d", name, i)
		want++
		if n := m.gateway("thought", map[string]any{"thought": text, "nextThoughtNeeded": true}).JSON(t)["thoughtNumber"]; n != want {
			t.Fatalf("%s numbered its thought %v, want %v", name, n, want)
		}
		texts = append(texts, text)
	}

	// A server that does not wait is refused while A writes, naming A.
	cmdC, urlC := startChildEnv(t, dir, nil, "THOUGHTBOX_LOCK_WAIT=0s")
	c := dialHTTP(t, urlC)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			text := fmt.Sprintf("A busy %d", i)
			if r, err := a.callRaw("thought", map[string]any{"thought": text, "nextThoughtNeeded": true}); err != nil || r.IsError {
				t.Errorf("A's thought while C tries: %v %s", err, r.Text)
				return
			}
			texts = append(texts, text)
		}
	}()
	busy := c.gateway("load_context", map[string]any{"sessionId": sid})
	close(stop)
	wg.Wait()
	if !busy.IsError || !strings.Contains(busy.Text, fmt.Sprintf("open in another thoughtbox process (pid %d)", cmdA.Process.Pid)) {
		t.Errorf("load_context on C while A writes: %+v", busy)
	}

	for _, cmd := range []*exec.Cmd{cmdA, cmdB, cmdC} {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}
	_, urlD := startChild(t, dir)
	d := dialHTTP(t, urlD)
	d.ready()
	got := d.gateway("session", map[string]any{"operation": "get", "sessionId": sid}).Text
	for _, want := range append(texts, "A 1") {
		if !strings.Contains(got, `"thought": "`+want+`"`) {
			t.Errorf("after the restart the session lacks %q", want)
		}
	}
	if stale, _ := staleLinks(t, dir); len(stale) > 0 {
		t.Errorf("stale links on disk: %v", stale)
	}
}
