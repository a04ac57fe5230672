package sqlitestore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// A process holds an advisory lock (flock(2)) on <locks dir>/<session id>.lock
// while it has the session open for writing, and writes its process id into
// the file so that another process can say who holds it. The kernel drops
// the lock when the process dies, so a crash never leaves a session locked.
// SQLite's own locks guard each transaction; this one makes a session's
// writer exclusive across its appends, as the storage contract requires.

// sessionLock is the cross-process lock of one session.
type sessionLock struct {
	fl *flock.Flock
}

func newSessionLock(dir, id string) *sessionLock {
	return &sessionLock{fl: flock.New(filepath.Join(dir, id+".lock"))}
}

// lockRetry is how often a waiting Open tries the lock again.
const lockRetry = 10 * time.Millisecond

// acquire takes the lock, waiting up to wait for it (not at all when wait is
// zero or less). It reports false when another process holds it.
func (l *sessionLock) acquire(wait time.Duration) (bool, error) {
	var ok bool
	var err error
	if wait <= 0 {
		ok, err = l.fl.TryLock()
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		ok, err = l.fl.TryLockContext(ctx, lockRetry)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			ok, err = false, nil
		}
	}
	if err != nil || !ok {
		return false, err
	}
	// The holder's id is informational; a failure to write it is harmless.
	_ = os.WriteFile(l.fl.Path(), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	return true, nil
}

// release drops the lock and closes its file.
func (l *sessionLock) release() error { return l.fl.Unlock() }

// holder returns the process id written by the lock's holder (0 when
// unknown).
func (l *sessionLock) holder() int {
	data, err := os.ReadFile(l.fl.Path())
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0
	}
	return pid
}
