package fsstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// contextFile is the stored form of one context: contexts/<id>.json beside
// the project's sessions directory, written by rename so that a reader in
// another process sees the old or the new state, never a torn one.
type contextFile struct {
	Used  time.Time       `json:"used"`
	State json.RawMessage `json:"state"`
}

func (s *Store) contextPath(id string) (string, error) {
	if !storage.ValidContextID(id) {
		return "", fmt.Errorf("context %q: %w", id, storage.ErrContextNotFound)
	}
	return filepath.Join(filepath.Dir(s.sessionsDir), "contexts", id+".json"), nil
}

// PutContext writes the context's file (storage.ContextStore).
func (s *Store) PutContext(id string, state []byte, used time.Time) error {
	path, err := s.contextPath(id)
	if err != nil {
		return err
	}
	data, err := json.Marshal(contextFile{Used: used.UTC(), State: state})
	if err != nil {
		return err
	}
	return writeFileAtomic(path, data)
}

// GetContext reads the context's file (storage.ContextStore).
func (s *Store) GetContext(id string) ([]byte, time.Time, error) {
	path, err := s.contextPath(id)
	if err != nil {
		return nil, time.Time{}, err
	}
	var f contextFile
	if err := readJSON(path, &f); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, time.Time{}, fmt.Errorf("context %s: %w", id, storage.ErrContextNotFound)
		}
		return nil, time.Time{}, err
	}
	return f.State, f.Used, nil
}

// DeleteContext removes the context's file (storage.ContextStore).
func (s *Store) DeleteContext(id string) error {
	path, err := s.contextPath(id)
	if err != nil {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// ExpireContexts removes the files of contexts last used before cutoff
// (storage.ContextStore), by the time each file records.
func (s *Store) ExpireContexts(cutoff time.Time) (int, error) {
	dir := filepath.Join(filepath.Dir(s.sessionsDir), "contexts")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !storage.ValidContextID(id) {
			continue
		}
		if _, used, err := s.GetContext(id); err == nil && !used.Before(cutoff) {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			n++
		}
	}
	return n, nil
}
