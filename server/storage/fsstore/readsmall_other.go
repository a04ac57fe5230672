//go:build !unix

package fsstore

import "os"

// readSmallFile reads a small file whole.
func readSmallFile(path string) ([]byte, error) { return os.ReadFile(path) }
