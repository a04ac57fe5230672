package sqlitestore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A process holds an advisory lock (flock(2)) on <locks dir>/<session id>.lock
// while it has the session open for writing, and writes its process id into
// the file so that another process can say who holds it. The kernel drops
// the lock when the process dies, so a crash never leaves a session locked.
// SQLite's own locks guard each transaction; this one makes a session's
// writer exclusive across its appends, as the storage contract requires.
//
// The lock is taken and given up around every thought, so it costs two
// system calls and an open: the file is opened without truncation and the
// process id is written over the same fixed-width bytes each time (a
// truncating rewrite made ext4 flush the file at every close).

// sessionLock is the cross-process lock of one session.
type sessionLock struct {
	path string
	f    *os.File // open while held
}

func newSessionLock(dir, id string) *sessionLock {
	return &sessionLock{path: filepath.Join(dir, id+".lock")}
}

// lockRetry is how often a waiting Open tries the lock again.
const lockRetry = 10 * time.Millisecond

// acquire takes the lock, waiting up to wait for it (not at all when wait is
// zero or less). It reports false when another process holds it. The
// caller serialises acquire and release.
func (l *sessionLock) acquire(wait time.Duration) (bool, error) {
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false, err
	}
	deadline := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return false, fmt.Errorf("lock %s: %w", l.path, err)
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return false, nil
		}
		time.Sleep(lockRetry)
	}
	// The holder's id is informational; a failure to write it is harmless.
	_, _ = f.WriteAt([]byte(fmt.Sprintf("%-11d\n", os.Getpid())), 0)
	l.f = f
	return true, nil
}

// release drops the lock and closes its file.
func (l *sessionLock) release() error {
	if l.f == nil {
		return nil
	}
	err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	err = errors.Join(err, l.f.Close())
	l.f = nil
	return err
}

// holder returns the process id written by the lock's holder (0 when
// unknown).
func (l *sessionLock) holder() int {
	data, err := os.ReadFile(l.path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0
	}
	return pid
}
