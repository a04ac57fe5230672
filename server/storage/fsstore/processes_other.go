//go:build !linux

package fsstore

// processes is the register of open stores (processes.go). Without open
// file description locks it is not kept: every look for other processes'
// changes runs.
type processes struct{}

func openProcesses(string) *processes { return nil }

func (*processes) state() lookState { return lookState{} }

func (*processes) close() {}
