package mcpserver

import (
	"sync"
	"sync/atomic"
	"time"
)

// table is the transport's one table of the clients this process serves:
// 2025-era MCP sessions (their client session, which holds their gateway
// state, and when they were last used) and the 2026-era contexts it is serving a call on
// (a lock each, so that two calls of this process never race on one
// context's stored state; the state itself is in the store, contexts.go).
// Session ids are UUIDs and context ids 32 hex digits, so the two never
// name one entry.
type table struct {
	// timeout ends sessions idle this long (0: never).
	timeout time.Duration
	now     func() time.Time

	mu      sync.Mutex
	entries map[string]*entry
}

// entry is one session or one context in the table.
type entry struct {
	// A session's.
	session *clientSession
	seen    atomic.Int64 // unix nanoseconds of its last request

	// A context's (guarded by the table's mu, but lock).
	lock  sync.Mutex
	users int
}

func newTable(timeout time.Duration) *table {
	return &table{timeout: timeout, now: time.Now, entries: map[string]*entry{}}
}

// addSession enters a new session.
func (t *table) addSession(session *clientSession) *entry {
	e := &entry{session: session}
	e.seen.Store(t.now().UnixNano())
	t.mu.Lock()
	t.entries[session.id] = e
	t.mu.Unlock()
	return e
}

// session returns the live session id and marks it used now; a session
// idle past the timeout is not live (the sweep removes it).
func (t *table) session(id string) (*entry, bool) {
	t.mu.Lock()
	e := t.entries[id]
	t.mu.Unlock()
	if e == nil || e.session == nil {
		return nil, false
	}
	now := t.now().UnixNano()
	if t.timeout > 0 && now-e.seen.Load() > int64(t.timeout) {
		return nil, false
	}
	e.seen.Store(now)
	return e, true
}

// removeSession takes session id out of the table and returns its entry
// (nil when there is none).
func (t *table) removeSession(id string) *entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.entries[id]
	if e == nil || e.session == nil {
		return nil
	}
	delete(t.entries, id)
	return e
}

// idle returns the ids of the sessions idle past the timeout.
func (t *table) idle() []string {
	if t.timeout <= 0 {
		return nil
	}
	limit := t.now().Add(-t.timeout).UnixNano()
	t.mu.Lock()
	defer t.mu.Unlock()
	var ids []string
	for id, e := range t.entries {
		if e.session != nil && e.seen.Load() < limit {
			ids = append(ids, id)
		}
	}
	return ids
}

// sessions returns the ids of every live session.
func (t *table) sessions() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	ids := make([]string, 0, len(t.entries))
	for id, e := range t.entries {
		if e.session != nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// lockContext serialises this process's calls on context id; the returned
// function unlocks it.
func (t *table) lockContext(id string) func() {
	t.mu.Lock()
	e := t.entries[id]
	if e == nil {
		e = &entry{}
		t.entries[id] = e
	}
	e.users++
	t.mu.Unlock()
	e.lock.Lock()
	return func() {
		e.lock.Unlock()
		t.mu.Lock()
		if e.users--; e.users == 0 && e.session == nil {
			delete(t.entries, id)
		}
		t.mu.Unlock()
	}
}

// sweepEvery is how often idle sessions are looked for: a quarter of the
// timeout, between 10 ms and a minute.
func sweepEvery(timeout time.Duration) time.Duration {
	return min(max(timeout/4, 10*time.Millisecond), time.Minute)
}
