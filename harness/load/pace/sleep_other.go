//go:build !linux

package pace

import "time"

// preciseSleep sleeps d with a runtime timer.
func preciseSleep(d time.Duration) { time.Sleep(d) }

// heldSleep is preciseSleep: real-time scheduling is Linux-only.
func heldSleep(d time.Duration) { preciseSleep(d) }
