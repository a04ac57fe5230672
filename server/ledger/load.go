package ledger

import (
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// LoadError is a session that cannot be loaded into a connection because its
// files are damaged. Its message says what is wrong and how to recover.
type LoadError struct {
	SessionID string
	Integrity storage.Integrity
}

func (e *LoadError) Error() string {
	return "Cannot load session " + e.SessionID + ": its files are damaged. " + strings.Join(e.Integrity.Errors, "; ") +
		"\n\nRecovery options:\n" +
		"1. Restore the missing or unreadable files of the session from a backup and restart the server.\n" +
		"2. Read what is still intact with the session operation (get, or export with format json) and continue in a new session.\n" +
		"3. Start a new reasoning session: call start_new, then cipher, then thought."
}

// Load checks the session's integrity and makes it the connection's current
// reasoning session. It fails with an error wrapping storage.ErrSessionNotFound
// for an unknown id and with a *LoadError for a damaged session.
func (h *Handler) Load(id string) (*storage.Chain, error) {
	integrity := h.cfg.Store.Integrity(id)
	c, err := h.cfg.Store.Get(id)
	if err != nil {
		if integrity.SessionExists {
			return nil, &LoadError{SessionID: id, Integrity: integrity}
		}
		return nil, err
	}
	if !integrity.Valid {
		return nil, &LoadError{SessionID: id, Integrity: integrity}
	}
	if err := c.Touch(); err != nil {
		return nil, err
	}
	h.SetCurrent(c)
	return c, nil
}
