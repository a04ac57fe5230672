package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestTheClientsCollectorLeavesAChosenSettingAlone checks tuneClientGC: a
// collector setting of the environment stays, and without one the load's
// client collects at GOGC=400 under a soft limit.
func TestTheClientsCollectorLeavesAChosenSettingAlone(t *testing.T) {
	gc, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(gc); debug.SetMemoryLimit(limit) })

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	tuneClientGC()
	if got := debug.SetGCPercent(100); got != clientGCPercent {
		t.Errorf("GOGC unset: the collector at %d, want %d", got, clientGCPercent)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != clientMemoryLimit {
		t.Errorf("GOMEMLIMIT unset: a soft limit of %d, want %d", got, clientMemoryLimit)
	}

	t.Setenv("GOGC", "100")
	t.Setenv("GOMEMLIMIT", "off")
	tuneClientGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=100: the collector at %d", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT=off: a soft limit of %d", got)
	}
}
