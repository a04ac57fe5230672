package storage

import (
	"errors"
	"fmt"
)

// ErrSessionBusy reports a session that another process has open for
// writing.
var ErrSessionBusy = errors.New("session is open in another process")

// BusyError is returned by Store.Open when another thoughtbox process holds
// the session's lock. PID is that process's id (0 when unknown).
type BusyError struct {
	SessionID string
	PID       int
}

func (e *BusyError) Error() string {
	who := "another thoughtbox process"
	if e.PID > 0 {
		who = fmt.Sprintf("another thoughtbox process (pid %d)", e.PID)
	}
	return "Session " + e.SessionID + " is open in " + who + ", which is writing it: only one server at a time may write a session. " +
		"Try again once it pauses (it lets go of a session a moment after its last change), " +
		"or raise THOUGHTBOX_LOCK_WAIT to wait longer."
}

// Unwrap makes errors.Is(err, ErrSessionBusy) true.
func (e *BusyError) Unwrap() error { return ErrSessionBusy }
