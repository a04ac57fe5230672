//go:build !linux

package procstat

import "time"

// onCPU is Linux only: elsewhere CPU times come from /proc's clock ticks.
func onCPU(int) (time.Duration, bool) { return 0, false }
