package sidecar

import (
	"sync"
	"sync/atomic"
	"time"
)

// maxSessions caps the sessions tracked at once; beyond it new sessions are
// not counted (the map is client-driven memory).
const maxSessions = 100_000

// sessionTracker counts the MCP sessions that pass through the proxy: added
// when an initialize answer carries an mcp-session-id, removed on a
// successful DELETE, on a 404 from the upstream for that id, or after
// SessionIdleTimeout without traffic; ended, when set, receives the
// duration of each removed session (until its last request for an idle
// one) and its error.type ("404" when the upstream forgot it). Session ids
// never leave it.
type sessionTracker struct {
	count *atomic.Int64
	idle  time.Duration
	ended func(d time.Duration, errType, version string)
	m     sync.Map // id → *session
}

// session is one tracked session.
type session struct {
	start time.Time
	last  atomic.Int64 // last seen, unix nanoseconds
}

func (s *sessionTracker) add(id string) {
	if s.count.Load() >= maxSessions {
		return
	}
	now := time.Now()
	e := &session{start: now}
	e.last.Store(now.UnixNano())
	if _, loaded := s.m.LoadOrStore(id, e); !loaded {
		s.count.Add(1)
	}
}

func (s *sessionTracker) touch(id string) {
	if v, ok := s.m.Load(id); ok {
		v.(*session).last.Store(time.Now().UnixNano())
	}
}

// remove ends a session that was closed (DELETE).
func (s *sessionTracker) remove(id string) { s.end(id, "", time.Now()) }

// lost ends a session the upstream no longer knows (404).
func (s *sessionTracker) lost(id string) { s.end(id, "404", time.Now()) }

func (s *sessionTracker) end(id, errType string, at time.Time) {
	if id == "" {
		return
	}
	v, loaded := s.m.LoadAndDelete(id)
	if !loaded {
		return
	}
	s.count.Add(-1)
	if s.ended != nil {
		s.ended(at.Sub(v.(*session).start), errType, "")
	}
}

// sweep forgets sessions idle since before now-idle; they lasted until
// their last request.
func (s *sessionTracker) sweep(now time.Time) {
	cutoff := now.Add(-s.idle).UnixNano()
	s.m.Range(func(k, v any) bool {
		if last := v.(*session).last.Load(); last < cutoff {
			s.end(k.(string), "", time.Unix(0, last))
		}
		return true
	})
}

// sweepEvery is how often idle sessions are looked for.
func (s *sessionTracker) sweepEvery() time.Duration {
	return min(max(s.idle/10, time.Second), time.Minute)
}
