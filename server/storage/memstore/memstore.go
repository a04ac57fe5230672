// Package memstore is the volatile storage backend: sessions live in memory
// only and are gone when the process exits.
package memstore

import (
	"time"

	"github.com/google/uuid"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// Store keeps reasoning sessions in memory.
type Store struct {
	// MemoryContexts keeps 2026-era contexts (storage.ContextStore).
	storage.MemoryContexts
	reg *storage.Registry
	now func() time.Time
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the source of timestamps (for tests).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// New returns an empty in-memory store.
func New(opts ...Option) *Store {
	s := &Store{reg: storage.NewRegistry(), now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Create starts a new session.
func (s *Store) Create(p storage.CreateParams) (*storage.Chain, error) {
	ts := storage.FormatTime(s.now())
	tags := p.Tags
	if tags == nil {
		tags = []string{}
	}
	c := storage.NewChain(storage.Session{ID: uuid.NewString(), Title: p.Title, Tags: tags,
		CreatedAt: ts, UpdatedAt: ts, LastAccessedAt: ts}, nil, s.now)
	s.reg.Add(c)
	return c, nil
}

// Get returns a session by id.
func (s *Store) Get(id string) (*storage.Chain, error) { return s.reg.Get(id) }

// Open returns a session for writing; one process owns the memory, so it
// never waits.
func (s *Store) Open(id string) (*storage.Chain, error) { return s.reg.Get(id) }

// Release has nothing to release.
func (s *Store) Release(string) {}

// List returns matching sessions, most recently updated first.
func (s *Store) List(f storage.Filter) []storage.Session { return s.reg.List(f) }

// Close releases nothing.
func (s *Store) Close() error { return nil }
