//go:build !linux

package fsstore

// spreadSubdirs does nothing outside Linux.
func spreadSubdirs(string) {}
