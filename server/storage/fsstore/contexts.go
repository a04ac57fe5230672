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
// another process sees the old or the new state, never a torn one. The
// file's modification time is the context's last use too: a use that
// changes nothing moves it (TouchContext) instead of rewriting the file, and
// the later of the two times is the one that counts.
type contextFile struct {
	Used  time.Time       `json:"used"`
	State json.RawMessage `json:"state"`
}

// contextTempDir is the directory inside contexts/ where a context's new
// file is written before it is renamed into place (see writeFileAtomicVia):
// start-up removes the stray ones there (D15) without reading every
// context's name. (Created in the contexts directory itself, they were
// never removed.)
const contextTempDir = "writing"

func (s *Store) contextsDir() string { return filepath.Join(filepath.Dir(s.sessionsDir), "contexts") }

func (s *Store) contextPath(id string) (string, error) {
	if !storage.ValidContextID(id) {
		return "", fmt.Errorf("context %q: %w", id, storage.ErrContextNotFound)
	}
	return filepath.Join(s.contextsDir(), id+".json"), nil
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
	if err := writeFileAtomicVia(filepath.Join(s.contextsDir(), contextTempDir), path, data); err != nil {
		return err
	}
	if d := time.Since(used); d > time.Second || d < -time.Second {
		// The file's modification time, its write time, counts as a use
		// too (GetContext): a use recorded at another time sets it.
		return os.Chtimes(path, used, used)
	}
	return nil
}

// TouchContext moves the context file's modification time to used
// (storage.ContextToucher): one metadata write instead of a new file.
func (s *Store) TouchContext(id string, used time.Time) error {
	path, err := s.contextPath(id)
	if err != nil {
		return err
	}
	if err := os.Chtimes(path, used, used); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("context %s: %w", id, storage.ErrContextNotFound)
		}
		return err
	}
	return nil
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
	if fi, err := os.Stat(path); err == nil && fi.ModTime().After(f.Used) {
		return f.State, fi.ModTime(), nil // touched since it was written
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
// (storage.ContextStore), by the time each file records. A context's last
// use is the later of the time in its file and the file's modification
// time, so a file modified since cutoff is kept without being read: a
// sweep of contexts still in use costs a stat each, not a read. (Every
// server process sweeps once when it starts, and over stdio every client
// starts one.)
func (s *Store) ExpireContexts(cutoff time.Time) (int, error) {
	dir := s.contextsDir()
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
		if fi, err := e.Info(); err == nil && !fi.ModTime().Before(cutoff) {
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
