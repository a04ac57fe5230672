//go:build !linux

package pace

import (
	"errors"
	"runtime"
)

// RealTimePermitted says that real-time priority is Linux-only.
func RealTimePermitted() error { return (*rtThread)(nil).enter() }

// rtThread is Linux-only: enter always fails elsewhere.
type rtThread struct{}

func (*rtThread) enter() error {
	return errors.New("real-time priority for the scheduler is implemented on Linux only (GOOS " + runtime.GOOS + ")")
}

func (*rtThread) leave() {}

func (*rtThread) close() error { return nil }
