package mcpserver

import (
	"sync"
	"testing"
	"time"
)

// A session is live until it sits idle past the timeout; each lookup marks
// it used; idle lists only sessions idle past the timeout.
func TestTableSessionsExpireWhenIdle(t *testing.T) {
	now := time.Unix(1000, 0)
	tb := newTable(time.Minute)
	tb.now = func() time.Time { return now }
	tb.addSession(newClientSession("a"))
	tb.addSession(newClientSession("b"))
	now = now.Add(50 * time.Second)
	if _, ok := tb.session("a"); !ok {
		t.Fatal("a used 50 s ago is not live")
	}
	now = now.Add(30 * time.Second) // a: 30 s idle, b: 80 s
	if ids := tb.idle(); len(ids) != 1 || ids[0] != "b" {
		t.Errorf("idle: %v, want [b]", ids)
	}
	if _, ok := tb.session("b"); ok {
		t.Error("b, idle 80 s, is live")
	}
	if e := tb.removeSession("b"); e == nil || e.session.id != "b" {
		t.Error("b could not be removed")
	}
	if e := tb.removeSession("b"); e != nil {
		t.Error("b removed twice")
	}
	if ids := tb.sessions(); len(ids) != 1 || ids[0] != "a" {
		t.Errorf("sessions: %v, want [a]", ids)
	}
}

// A context's lock serialises its holders and leaves nothing behind; a
// lock taken on a session's id leaves the session in place.
func TestTableContextLocks(t *testing.T) {
	tb := newTable(0)
	var mu sync.Mutex
	inside, most := 0, 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unlock := tb.lockContext("c")
			mu.Lock()
			inside++
			most = max(most, inside)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			inside--
			mu.Unlock()
			unlock()
		}()
	}
	wg.Wait()
	if most != 1 {
		t.Errorf("%d holders of one context's lock at once", most)
	}
	if len(tb.entries) != 0 {
		t.Errorf("%d entries left after the last unlock", len(tb.entries))
	}
	tb.addSession(newClientSession("s"))
	tb.lockContext("s")()
	if _, ok := tb.session("s"); !ok {
		t.Error("a context lock on a session's id removed the session")
	}
	if ids := tb.idle(); len(ids) != 0 {
		t.Errorf("idle with no timeout: %v", ids)
	}
}

// TestQuietMethodsGetASmallQueue: discovery, ping and the listings answer
// without notifying first and get a small notification queue; a method
// that may notify (a tool call's progress and log messages, a resource
// read, a prompt, a subscription) keeps the full one.
func TestQuietMethodsGetASmallQueue(t *testing.T) {
	for _, m := range []string{"server/discover", "ping", "tools/list", "resources/list", "resources/templates/list", "prompts/list"} {
		if !quietMethod(m) {
			t.Errorf("%s is not quiet", m)
		}
	}
	for _, m := range []string{"tools/call", "resources/read", "prompts/get", "subscriptions/listen", "completion/complete", ""} {
		if quietMethod(m) {
			t.Errorf("%s is quiet", m)
		}
	}
	if c := newClientSessionOfDepth("q", quietNotesDepth); cap(c.notes) != quietNotesDepth {
		t.Errorf("queue of %d, want %d", cap(c.notes), quietNotesDepth)
	}
	if c := newClientSession("full"); cap(c.notes) != notesDepth {
		t.Errorf("queue of %d, want %d", cap(c.notes), notesDepth)
	}
}
