package ledger

import (
	"errors"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// LoadError is a session that cannot be loaded into a connection because its
// files are damaged. Its message says what is wrong and how to recover.
type LoadError struct {
	SessionID string
	// Health is the store's verdict on the session (storage.Check).
	Health storage.Health
	// Unreadable is true when nothing of the session could be read, so the
	// session operation cannot show it either.
	Unreadable bool
}

func (e *LoadError) Error() string {
	msg := "Cannot load session " + clip.String(e.SessionID) + ": its files are damaged. " + strings.Join(e.Health.Problems, "; ") +
		"\n\nRecovery options:\n"
	if e.Unreadable {
		return msg +
			"1. Restore the session's manifest.json or journal.jsonl from a backup into its directory (named above) and restart the server.\n" +
			"2. The thought files that remain in that directory are plain JSON, one thought each: read them there and carry on in a new session.\n" +
			"3. Start a new reasoning session: call start_new, then cipher, then thought."
	}
	return msg +
		"1. Restore the missing or unreadable files of the session from a backup and restart the server.\n" +
		"2. Read what is still intact with the session operation (get, or export with format json) and continue in a new session.\n" +
		"3. Start a new reasoning session: call start_new, then cipher, then thought."
}

// Load opens the session for writing (taking it over from another process
// that wrote it last), checks its integrity and makes it the connection's
// current reasoning session. It fails with an error wrapping
// storage.ErrSessionNotFound for an unknown id, with a *storage.BusyError
// when another process has the session open, and with a *LoadError for a
// damaged session.
func (h *Handler) Load(id string) (*storage.Chain, error) {
	c, err := h.cfg.Store.Open(id)
	if err != nil {
		if errors.Is(err, storage.ErrSessionNotFound) {
			if health := storage.Check(h.cfg.Store, id); health.Exists {
				return nil, &LoadError{SessionID: id, Health: health, Unreadable: true}
			}
		}
		return nil, err
	}
	health := storage.Check(h.cfg.Store, id)
	h.cfg.Store.Release(id)
	if !health.Valid {
		return nil, &LoadError{SessionID: id, Health: health}
	}
	c.Touch()
	h.SetCurrent(c)
	h.emitLoaded(c)
	return c, nil
}
