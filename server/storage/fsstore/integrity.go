package fsstore

import (
	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// Integrity is the result of checking a session's files (the
// IntegrityValidationResult of the data model).
type Integrity struct {
	Valid               bool                `json:"valid"`
	SessionExists       bool                `json:"sessionExists"`
	ManifestExists      bool                `json:"manifestExists"`
	ManifestValid       bool                `json:"manifestValid"`
	MissingThoughtFiles []string            `json:"missingThoughtFiles"`
	MissingBranchFiles  map[string][]string `json:"missingBranchFiles"`
	Errors              []string            `json:"errors"`
}

// validIntegrity is the result for a session without problems.
func validIntegrity() Integrity {
	return Integrity{Valid: true, SessionExists: true, ManifestExists: true, ManifestValid: true,
		MissingThoughtFiles: []string{}, MissingBranchFiles: map[string][]string{}, Errors: []string{}}
}

// missingIntegrity is the result for an unknown session id.
func missingIntegrity(id string) Integrity {
	return Integrity{MissingThoughtFiles: []string{}, MissingBranchFiles: map[string][]string{},
		Errors: []string{"Session " + clip.String(id) + " not found"}}
}

// Check is Integrity in the form every backend reports (storage.Checker):
// it writes what is pending, rewrites missing thought files from memory and
// reports what is still wrong.
func (s *Store) Check(id string) storage.Health {
	res := s.Integrity(id)
	return storage.Health{Exists: res.SessionExists, Valid: res.Valid, Problems: res.Errors}
}

var (
	_ storage.Checker        = (*Store)(nil)
	_ storage.DamageReporter = (*Store)(nil)
	_ storage.Flusher        = (*Store)(nil)
)
