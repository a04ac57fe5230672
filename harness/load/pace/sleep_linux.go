package pace

import (
	"syscall"
	"time"
)

// preciseSleep sleeps d with nanosleep(2), which wakes within tens of
// microseconds where a runtime timer can take a millisecond.
func preciseSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}
