package pace

import (
	"syscall"
	"time"
	"unsafe"
)

// preciseSleep sleeps d with nanosleep(2), which wakes within tens of
// microseconds where a runtime timer can take a millisecond.
func preciseSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}

// heldSleep sleeps d with nanosleep(2) as a raw system call: the runtime does
// not know the goroutine is asleep, so its processor is neither handed to
// another thread nor has to be won back on waking. Only for a goroutine
// locked to its thread (rtThread) that can spare the processor.
func heldSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_, _, _ = syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}
