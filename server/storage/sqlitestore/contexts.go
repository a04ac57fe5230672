package sqlitestore

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// PutContext stores the context's state in the contexts table
// (storage.ContextStore).
func (s *Store) PutContext(id string, state []byte, used time.Time) error {
	if !storage.ValidContextID(id) {
		return fmt.Errorf("context %q: %w", id, storage.ErrContextNotFound)
	}
	_, err := s.exec(`INSERT INTO contexts(id, state, used) VALUES (?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET state = excluded.state, used = excluded.used`, id, string(state), used.UnixNano())
	return err
}

// GetContext reads the context's state (storage.ContextStore).
func (s *Store) GetContext(id string) ([]byte, time.Time, error) {
	if !storage.ValidContextID(id) {
		return nil, time.Time{}, fmt.Errorf("context %q: %w", id, storage.ErrContextNotFound)
	}
	var state string
	var used int64
	err := s.queryRow(`SELECT state, used FROM contexts WHERE id = ?`, id).Scan(&state, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, time.Time{}, fmt.Errorf("context %s: %w", id, storage.ErrContextNotFound)
	}
	if err != nil {
		return nil, time.Time{}, err
	}
	return []byte(state), time.Unix(0, used), nil
}

// DeleteContext removes the context (storage.ContextStore).
func (s *Store) DeleteContext(id string) error {
	_, err := s.exec(`DELETE FROM contexts WHERE id = ?`, id)
	return err
}

// ExpireContexts deletes the contexts last used before cutoff
// (storage.ContextStore).
func (s *Store) ExpireContexts(cutoff time.Time) (int, error) {
	res, err := s.exec(`DELETE FROM contexts WHERE used < ?`, cutoff.UnixNano())
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
