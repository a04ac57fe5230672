package pace

import (
	"fmt"
	"runtime"
	"sync"
)

// RealTime says whether an open executor's scheduler asks the operating
// system for a real-time priority while it waits for the next arrival.
//
// On a machine whose cores are shared with the target, an ordinary thread
// that wakes up for an arrival can wait a millisecond or more for a core,
// behind the target's threads and the generator's own. With RealTimeAuto or
// RealTimeOn the scheduler goroutine keeps the OS thread it runs on while it
// waits (runtime.LockOSThread), that thread holds the lowest real-time
// priority (SCHED_FIFO 1, not inherited by threads or processes it starts)
// and sleeps without giving up its Go processor, so it wakes on time and
// hands the arrival over at once. It then lets the user it handed the
// arrival to run on the same thread, which is already on a core, and moves
// the priority along when it next runs on another thread. Only one thread of
// the process holds the priority at a time, and none does after Run.
//
// The processor the scheduler keeps is made up for: while it runs,
// GOMAXPROCS is one higher, so the generator's other goroutines (users, an
// in-process sidecar) have as many as before. On cores shared with the
// target the precise schedule still costs the target some latency: the
// real-time thread's spin before each arrival (Real.Spin) and the users it
// runs pre-empt the target's threads, and the extra processor lets the
// generator take more of the cores at once.
//
// Real-time priority needs CAP_SYS_NICE (root has it) or an RLIMIT_RTPRIO
// above 0, and Linux. It applies only with the Real clock.
type RealTime int

const (
	// RealTimeOff leaves the scheduler an ordinary goroutine.
	RealTimeOff RealTime = iota
	// RealTimeAuto uses real-time priority where the system allows it and
	// otherwise runs as RealTimeOff; Result says which, and why.
	RealTimeAuto
	// RealTimeOn requires real-time priority: Run fails without it.
	RealTimeOn
)

// String returns the name ParseRealTime accepts.
func (m RealTime) String() string {
	switch m {
	case RealTimeOff:
		return "off"
	case RealTimeAuto:
		return "auto"
	case RealTimeOn:
		return "on"
	}
	return fmt.Sprintf("RealTime(%d)", int(m))
}

// ParseRealTime parses "auto", "on" or "off".
func ParseRealTime(s string) (RealTime, error) {
	for _, m := range []RealTime{RealTimeOff, RealTimeAuto, RealTimeOn} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("real-time mode %q: want auto, on or off", s)
}

// rtPriority is the SCHED_FIFO priority of the scheduler's thread: the
// lowest real-time one, above every ordinary thread and below the kernel's
// own real-time threads.
const rtPriority = 1

// extraProcs counts the processors real-time schedulers keep for
// themselves; GOMAXPROCS is base plus that while it is not zero.
var extraProcs struct {
	sync.Mutex
	held, base int
}

// addProc raises GOMAXPROCS by one for a scheduler that keeps a processor;
// the returned function lowers it again.
func addProc() (release func()) {
	extraProcs.Lock()
	defer extraProcs.Unlock()
	if extraProcs.held == 0 {
		extraProcs.base = runtime.GOMAXPROCS(0)
	}
	extraProcs.held++
	runtime.GOMAXPROCS(extraProcs.base + extraProcs.held)
	return func() {
		extraProcs.Lock()
		defer extraProcs.Unlock()
		extraProcs.held--
		runtime.GOMAXPROCS(extraProcs.base + extraProcs.held)
	}
}
