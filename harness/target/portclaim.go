package target

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Harness processes that run at once (make test runs two to four) each
// walk their own ports from a random start (freePort), and a port free when
// one of them picks it stays free until its child binds it: another
// process could pick it in between, and one child would then fail to bind
// while its harness, dialing the port, reached the other's server. So a
// process claims a port before it hands it out: a write lock (fcntl) on the
// port's byte of one file every harness process shares, held for
// portClaimHold, longer than a child takes to bind; a port another process
// has claimed is passed over. The kernel drops a process's locks when it
// exits.

// portClaimHold is how long a claim on a port lasts.
const portClaimHold = 2 * time.Minute

// portClaims is the shared file (nil when it cannot be opened: ports are
// then handed out unclaimed, as before claims).
var portClaims = sync.OnceValue(func() *os.File {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "tbbench-ports.lock"), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil
	}
	return f // never closed: closing any descriptor of the file would drop every claim of this process
})

// claimPort claims port p for this process for portClaimHold and reports
// whether it could: false when another process holds a claim on it.
func claimPort(p int) bool {
	f := portClaims()
	if f == nil {
		return true
	}
	lock := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: int64(p), Len: 1}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lock); err != nil {
		return false
	}
	time.AfterFunc(portClaimHold, func() {
		unlock := syscall.Flock_t{Type: syscall.F_UNLCK, Whence: 0, Start: int64(p), Len: 1}
		_ = syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &unlock)
	})
	return true
}
