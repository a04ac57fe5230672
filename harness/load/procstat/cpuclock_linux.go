package procstat

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPUClock is the CPU-time clock of process pid, made as glibc's
// clock_getcpuclockid(3) makes it on Linux: MAKE_PROCESS_CPUCLOCK(pid,
// CPUCLOCK_SCHED), the scheduler's run time of every thread of the process,
// those that have exited included. Linux lets any process read it.
func processCPUClock(pid int) int32 { return int32((^pid)<<3 | 2) }

// onCPU returns the time process pid's threads have run so far, to the
// nanosecond; false when the clock cannot be read (the process is gone).
func onCPU(pid int) (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(processCPUClock(pid), &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
