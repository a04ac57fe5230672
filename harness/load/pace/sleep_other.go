//go:build !linux

package pace

import "time"

// preciseSleep sleeps d with a runtime timer.
func preciseSleep(d time.Duration) { time.Sleep(d) }
