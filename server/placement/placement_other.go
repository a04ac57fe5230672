//go:build !linux

package placement

// SpreadSubdirs does nothing outside Linux.
func SpreadSubdirs(string) {}
