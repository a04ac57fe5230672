package storage

import (
	"errors"
	"sync"
	"time"
)

// ErrContextNotFound reports a context id the store does not hold.
var ErrContextNotFound = errors.New("context not found")

// ContextStore is implemented by backends that keep 2026-era contexts (spec
// D26): the per-client state — stage, current reasoning session, bound
// root, navigation — that the 2025 era keeps per MCP session. A context is
// stored as an opaque state document with the time it was last used, so
// that every server process on the same data serves it.
type ContextStore interface {
	// PutContext stores the state of context id, used at the given time,
	// replacing what was there.
	PutContext(id string, state []byte, used time.Time) error
	// GetContext returns the state of context id and when it was last used,
	// or an error wrapping ErrContextNotFound.
	GetContext(id string) (state []byte, used time.Time, err error)
	// DeleteContext forgets context id (no error when it is unknown).
	DeleteContext(id string) error
	// ExpireContexts forgets every context last used before cutoff and
	// returns how many it forgot.
	ExpireContexts(cutoff time.Time) (int, error)
}

// ContextToucher is a ContextStore that records a use of a context whose
// state did not change more cheaply than PutContext can (the 2026 era's
// reads change nothing but the context's idle clock).
type ContextToucher interface {
	// TouchContext records that context id was used at the given time,
	// keeping its state; an unknown id is an error wrapping
	// ErrContextNotFound.
	TouchContext(id string, used time.Time) error
}

// ContextCreator is a ContextStore that stores a new context more cheaply
// than PutContext can, knowing that no one else holds its id yet: no
// reader can meet it half-written.
type ContextCreator interface {
	// CreateContext stores the first state of context id, an id just
	// minted and not yet handed to anyone, used at the given time.
	CreateContext(id string, state []byte, used time.Time) error
}

// ValidContextID reports whether id has the form the server mints: 32
// lower-case hexadecimal digits. Backends refuse anything else, so an id is
// never used raw in a path or query it was not meant for.
func ValidContextID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// MemoryContexts is a ContextStore in memory, for backends whose sessions
// live in one process. The zero value is ready to use.
type MemoryContexts struct {
	mu sync.Mutex
	m  map[string]memoryContext
}

type memoryContext struct {
	state []byte
	used  time.Time
}

// PutContext stores a copy of state.
func (m *MemoryContexts) PutContext(id string, state []byte, used time.Time) error {
	if !ValidContextID(id) {
		return ErrContextNotFound
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]memoryContext{}
	}
	m.m[id] = memoryContext{state: append([]byte(nil), state...), used: used}
	return nil
}

// GetContext returns a copy of the stored state.
func (m *MemoryContexts) GetContext(id string) ([]byte, time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.m[id]
	if !ok {
		return nil, time.Time{}, ErrContextNotFound
	}
	return append([]byte(nil), c.state...), c.used, nil
}

// DeleteContext forgets id.
func (m *MemoryContexts) DeleteContext(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.m, id)
	return nil
}

// ExpireContexts forgets the contexts last used before cutoff.
func (m *MemoryContexts) ExpireContexts(cutoff time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for id, c := range m.m {
		if c.used.Before(cutoff) {
			delete(m.m, id)
			n++
		}
	}
	return n, nil
}
