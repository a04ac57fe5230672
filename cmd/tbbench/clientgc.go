package main

import (
	"os"
	"runtime/debug"
)

// Unless GOGC or GOMEMLIMIT says otherwise, the load's client collects
// garbage at GOGC=400 under a soft limit of 2 GiB: decoding answers is
// most of what it allocates, and at Go's default (100) its collector cost
// about a tenth of its CPU time per call on two cores, which it then did
// not leave the server it measures (docs/load.md, "The client's
// collector"). The servers it starts keep their own settings: this changes
// no environment.
const (
	clientGCPercent   = 400
	clientMemoryLimit = 2 << 30
)

// tuneClientGC sets this process's collector for a load run.
func tuneClientGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(clientGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(clientMemoryLimit)
	}
}
