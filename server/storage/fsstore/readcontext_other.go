//go:build !linux

package fsstore

import (
	"os"
	"time"
)

// readContextFile reads a context's file whole and returns its modification
// time (buf is not used).
func readContextFile(path string, _ []byte) ([]byte, time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	data, fi, err := readOpenFile(f)
	if err != nil {
		return nil, time.Time{}, err
	}
	return data, fi.ModTime(), nil
}
