// Package procgroup signals the process groups the harness's and the
// sidecar's children lead, and never a group that has since been given the
// same number.
//
// The harness starts its servers, and the official suite's CLI, each in a
// process group of its own (Setpgid), and so does the stdio sidecar with the
// server it relays; each ends one by signalling the group: that reaches
// whatever the process started too. The group's id is the
// leader's pid. While the leader has not been reaped, that pid is its own;
// once it has (its Wait returned), the kernel may give the number to a new
// process, and with a pid_max of 32768 a busy machine comes round to it
// within minutes. A group signalled by number then could be another test's
// server, a new group leader with the same number.
package procgroup

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// Signal sends sig to the process group p leads. Once p has been reaped
// the group is signalled only while no process has p's pid: what is left
// of the group, if anything, still holds the number then, and no new
// process can have it. Otherwise nothing is sent.
func Signal(p *os.Process, sig syscall.Signal) {
	if p == nil {
		return
	}
	if errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone) && pidInUse(p.Pid) {
		return
	}
	_ = syscall.Kill(-p.Pid, sig)
}

// Running reports whether p has neither exited nor been reaped: an exited
// process nobody reaped yet is a zombie, and does not run. Without /proc a
// zombie counts as running.
func Running(p *os.Process) bool {
	if p == nil || p.Signal(syscall.Signal(0)) != nil {
		return false // reaped (its pid may be another's now), or gone
	}
	// Not reaped: the pid is still p's own.
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.Pid))
	if err != nil {
		return !procWorks()
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return true
	}
	f := strings.Fields(string(data[i+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// pidInUse reports whether some process has pid (true where /proc can not
// tell).
func pidInUse(pid int) bool {
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil || !procWorks() {
		return true
	}
	return false
}

// procWorks reports whether /proc shows this machine's processes.
func procWorks() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}
