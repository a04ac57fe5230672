package brokenserver

import (
	"crypto/sha256"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// ThoughtCPU is the CPU time CostlyThought burns for each thought call. New
// reads it: set it before starting a proxy with CostlyThought.
var ThoughtCPU = 150 * time.Microsecond

// workUnitBytes is the size of the buffer one work unit hashes.
const workUnitBytes = 4 << 10

// Calibration of the work unit: calibrationTrials runs of calibrationUnits
// units each, the fastest run counting.
const (
	calibrationTrials = 10
	calibrationUnits  = 128
)

// calibration holds the CPU time of one work unit, measured once.
var calibration struct {
	once    sync.Once
	perUnit float64 // nanoseconds of CPU time
}

// sink keeps the work units' results alive, so that the compiler cannot
// drop the work.
var sink atomic.Uint32

// unitCost returns the CPU time of one work unit in nanoseconds, measuring
// it on the first call.
func unitCost() float64 {
	calibration.once.Do(func() { calibration.perUnit = calibrate() })
	return calibration.perUnit
}

// calibrate measures the CPU time of a work unit with the thread CPU clock,
// the goroutine locked to its thread: the fastest of calibrationTrials runs,
// per unit. Time the thread spends descheduled does not count, so the
// result is the same however busy the machine is.
func calibrate() float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	burnUnits(calibrationUnits) // warm up
	best := math.Inf(1)
	for range calibrationTrials {
		start := threadCPU()
		burnUnits(calibrationUnits)
		if d := threadCPU() - start; d > 0 {
			best = min(best, float64(d)/calibrationUnits)
		}
	}
	if math.IsInf(best, 1) {
		best = 1 // no clock: one unit per nanosecond asked for
	}
	return best
}

// unitsFor returns how many work units take d of CPU time (none when d is
// not positive, at least one otherwise).
func unitsFor(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return max(1, int(math.Round(float64(d)/unitCost())))
}

// burnFor burns d of CPU time in the calling goroutine, locked to its
// thread: work units one after another until the thread's CPU clock has
// advanced by d, or, where that clock cannot be read, the units calibrated
// for d. A unit's CPU time is not fixed: it grows while another thread
// shares the core, so a count calibrated in other conditions burns less
// than d, or more (in a busy make test, about a third of it). burnFor
// returns how many units it ran.
func burnFor(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	if start == 0 {
		n := unitsFor(d)
		burnUnits(n)
		return n
	}
	n := 0
	for threadCPU()-start < d {
		burnUnits(1)
		n++
	}
	return n
}

// burnUnits runs n work units: each hashes a 4 KiB buffer with SHA-256 and
// feeds the sum back into the buffer.
func burnUnits(n int) {
	if n <= 0 {
		return
	}
	var buf [workUnitBytes]byte
	for i := range n {
		sum := sha256.Sum256(buf[:])
		copy(buf[i%(workUnitBytes/sha256.Size)*sha256.Size:], sum[:])
	}
	sink.Add(uint32(buf[0]))
}
