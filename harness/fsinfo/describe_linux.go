//go:build linux

package fsinfo

import (
	"os"
	"path/filepath"
)

// Describe names the file system dir is on; the zero FileSystem when it
// cannot be told.
func Describe(dir string) FileSystem {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return FileSystem{}
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	f, err := describe(os.DirFS("/proc"), abs, func(dev string) string {
		if real, err := filepath.EvalSymlinks(dev); err == nil {
			return real
		}
		return dev
	})
	if err != nil {
		return FileSystem{}
	}
	return f
}
