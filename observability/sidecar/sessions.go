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
// SessionIdleTimeout without traffic. Session ids never leave it.
type sessionTracker struct {
	count *atomic.Int64
	idle  time.Duration
	m     sync.Map // id → *atomic.Int64 (last seen, unix nanoseconds)
}

func (s *sessionTracker) add(id string) {
	if s.count.Load() >= maxSessions {
		return
	}
	last := &atomic.Int64{}
	last.Store(time.Now().UnixNano())
	if _, loaded := s.m.LoadOrStore(id, last); !loaded {
		s.count.Add(1)
	}
}

func (s *sessionTracker) touch(id string) {
	if v, ok := s.m.Load(id); ok {
		v.(*atomic.Int64).Store(time.Now().UnixNano())
	}
}

func (s *sessionTracker) remove(id string) {
	if id == "" {
		return
	}
	if _, loaded := s.m.LoadAndDelete(id); loaded {
		s.count.Add(-1)
	}
}

// sweep forgets sessions idle since before now-idle.
func (s *sessionTracker) sweep(now time.Time) {
	cutoff := now.Add(-s.idle).UnixNano()
	s.m.Range(func(k, v any) bool {
		if v.(*atomic.Int64).Load() < cutoff {
			s.remove(k.(string))
		}
		return true
	})
}

// sweepEvery is how often idle sessions are looked for.
func (s *sessionTracker) sweepEvery() time.Duration {
	return min(max(s.idle/10, time.Second), time.Minute)
}
