//go:build unix

package sidecar

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/thoughtbox-bench/tbbench/internal/procgroup"
)

// ownGroup starts the server in a process group of its own, unless the
// caller chose the command's attributes, and reports whether it did: then
// stopping the server reaches what it started too (a wrapper such as
// strace, or a launcher that does not pass signals on, leaves the real
// server behind otherwise).
func ownGroup(cmd *exec.Cmd) bool {
	if cmd.SysProcAttr != nil {
		return cmd.SysProcAttr.Setpgid && cmd.SysProcAttr.Pgid == 0
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return true
}

// signalGroup sends sig to the process group p leads, never to a group
// that was given its number after p was reaped (procgroup.Signal).
func signalGroup(p *os.Process, sig syscall.Signal) { procgroup.Signal(p, sig) }
