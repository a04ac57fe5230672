package storage

import (
	"errors"

	"github.com/thoughtbox-bench/tbbench/server/clip"
)

// The abilities below belong to some backends only. Callers find them with a
// type assertion, or through the helpers at the end of this file, which give
// the sensible answer for a backend without the ability.

// Health is a backend's verdict on how one session is kept in storage.
type Health struct {
	// Exists is true when the backend holds the session in storage, even
	// when it could not read it.
	Exists bool
	// Valid is true when everything recorded of the session is intact.
	Valid bool
	// Problems says what is wrong, one sentence each (empty when Valid).
	Problems []string
}

// Checker is implemented by backends whose stored sessions can be damaged
// from outside (files removed or edited by hand): Check looks at the
// session's stored form, repairs what it can from what the process holds,
// and reports what is still wrong.
type Checker interface {
	Check(id string) Health
}

// DamageReporter is implemented by backends that find damaged sessions when
// they start.
type DamageReporter interface {
	// Damaged lists the sessions found with problems nothing could repair
	// (not loaded at all, or loaded with thoughts missing), with the
	// reason, keyed by session id.
	Damaged() map[string]string
}

// Flusher is implemented by backends that acknowledge a change before its
// final stored form is written (the fs backend writes thought files and
// manifests in the background behind its journal).
type Flusher interface {
	// Flush writes everything of the session still pending.
	Flush(id string) error
}

// Check returns s's verdict on session id. A backend without a Checker
// keeps every session it knows intact: its sessions are valid, and an
// unknown id does not exist.
func Check(s Store, id string) Health {
	if c, ok := s.(Checker); ok {
		return c.Check(id)
	}
	if _, err := s.Get(id); err != nil {
		if errors.Is(err, ErrSessionNotFound) {
			return Health{Problems: []string{"Session " + clip.String(id) + " not found"}}
		}
		return Health{Exists: true, Problems: []string{err.Error()}}
	}
	return Health{Exists: true, Valid: true, Problems: []string{}}
}

// Damaged returns the damaged sessions s found at start-up (none for a
// backend without a DamageReporter).
func Damaged(s Store) map[string]string {
	if d, ok := s.(DamageReporter); ok {
		return d.Damaged()
	}
	return map[string]string{}
}

// Flush writes what s still holds pending of session id (nothing for a
// backend without a Flusher: it stores every change in its final form).
func Flush(s Store, id string) error {
	if f, ok := s.(Flusher); ok {
		return f.Flush(id)
	}
	return nil
}
