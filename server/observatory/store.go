package observatory

import "slices"

// DefaultMaxSessions is the most sessions the store keeps.
const DefaultMaxSessions = 1000

// DefaultMaxBytes bounds the thought text the store keeps, all sessions
// together.
const DefaultMaxBytes = 64 << 20

// store holds the sessions seen while the Observatory runs (nothing is
// loaded from persistence). When it holds more than its limits allow it
// evicts the oldest completed (or abandoned) session, then the oldest
// other one, never the session just written to. It is not safe for
// concurrent use: the Observatory guards it.
type store struct {
	maxSessions, maxBytes int
	order                 []string // session ids, oldest first
	sessions              map[string]*entry
	bytes                 int
	evicted               uint64
}

type entry struct {
	session  Session
	thoughts []Thought
	branches map[string]*Branch
	bytes    int
}

func newStore(maxSessions, maxBytes int) *store {
	return &store{maxSessions: maxSessions, maxBytes: maxBytes, sessions: map[string]*entry{}}
}

// start records a new session; a known id is left as it is.
func (s *store) start(sess Session) {
	if _, ok := s.sessions[sess.ID]; ok {
		return
	}
	if sess.Tags == nil {
		sess.Tags = []string{}
	}
	s.sessions[sess.ID] = &entry{session: sess, branches: map[string]*Branch{}}
	s.order = append(s.order, sess.ID)
	s.evict(sess.ID)
}

// The results of add.
const (
	stored  = iota
	unknown // the store does not hold the session
	full    // the session alone fills the store: not stored
)

// add appends a thought to its session: to the branch when it has a
// branch id, else to the main chain. Other sessions are evicted to make
// room; a session that alone would exceed the byte bound keeps what it
// has and the thought is only broadcast.
func (s *store) add(session string, t Thought) int {
	e, ok := s.sessions[session]
	if !ok {
		return unknown
	}
	size := len(t.Thought)
	s.bytes += size
	s.evict(session)
	if s.bytes > s.maxBytes {
		s.bytes -= size
		return full
	}
	e.bytes += size
	if t.BranchID == "" {
		e.thoughts = append(e.thoughts, t)
	} else {
		b := e.branches[t.BranchID]
		if b == nil {
			b = &Branch{ID: t.BranchID, FromThoughtNumber: t.BranchFromThought}
			e.branches[t.BranchID] = b
		}
		b.Thoughts = append(b.Thoughts, t)
	}
	return stored
}

// complete marks a session completed at the time given.
func (s *store) complete(session, at string) {
	if e, ok := s.sessions[session]; ok {
		e.session.Status = StatusCompleted
		e.session.CompletedAt = at
	}
}

func (s *store) evict(keep string) {
	for len(s.order) > s.maxSessions || (s.bytes > s.maxBytes && len(s.order) > 1) {
		victim := -1
		for i, id := range s.order {
			if st := s.sessions[id].session.Status; id != keep && st != StatusActive {
				victim = i
				break
			}
		}
		if victim < 0 {
			victim = slices.IndexFunc(s.order, func(id string) bool { return id != keep })
		}
		if victim < 0 {
			return
		}
		id := s.order[victim]
		s.bytes -= s.sessions[id].bytes
		delete(s.sessions, id)
		s.order = slices.Delete(s.order, victim, victim+1)
		s.evicted++
	}
}

// snapshot returns a copy of a session with its thoughts.
func (s *store) snapshot(session string) (Snapshot, bool) {
	e, ok := s.sessions[session]
	if !ok {
		return Snapshot{}, false
	}
	snap := Snapshot{Session: e.session, Thoughts: slices.Clone(e.thoughts), Branches: make(map[string]Branch, len(e.branches))}
	if snap.Thoughts == nil {
		snap.Thoughts = []Thought{}
	}
	for id, b := range e.branches {
		snap.Branches[id] = Branch{ID: b.ID, FromThoughtNumber: b.FromThoughtNumber, Thoughts: slices.Clone(b.Thoughts)}
	}
	return snap, true
}

// list returns the sessions with the status given ("" or "all": every
// one), newest first, skipping offset and returning at most limit.
func (s *store) list(status string, limit, offset int) []Session {
	out := []Session{}
	for i := len(s.order) - 1; i >= 0 && len(out) < limit; i-- {
		sess := s.sessions[s.order[i]].session
		if status != "" && status != "all" && sess.Status != status {
			continue
		}
		if offset > 0 {
			offset--
			continue
		}
		out = append(out, sess)
	}
	return out
}

// active counts the active sessions.
func (s *store) active() int {
	n := 0
	for _, e := range s.sessions {
		if e.session.Status == StatusActive {
			n++
		}
	}
	return n
}

// branchFrom returns the fork point of a stored branch (0 when unknown).
func (s *store) branchFrom(session, branch string) int {
	if e, ok := s.sessions[session]; ok {
		if b := e.branches[branch]; b != nil {
			return b.FromThoughtNumber
		}
	}
	return 0
}
