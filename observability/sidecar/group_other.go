//go:build !unix

package sidecar

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup reports false: process groups are a Unix matter.
func ownGroup(*exec.Cmd) bool { return false }

// signalGroup is not called where ownGroup reports false.
func signalGroup(p *os.Process, sig syscall.Signal) { _ = p.Signal(sig) }
