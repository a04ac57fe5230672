//go:build !linux

package brokenserver

import "time"

// wallOrigin is the origin of threadCPU.
var wallOrigin = time.Now()

// threadCPU stands in for the thread CPU clock, which is read on Linux only:
// it returns wall time, so calibration is only right on an idle machine.
func threadCPU() time.Duration { return time.Since(wallOrigin) }
