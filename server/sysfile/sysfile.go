// Package sysfile writes files with plain system calls instead of *os.File,
// for the servers' hot paths: a file per thought, a journal line per
// thought, an export per closed session. An *os.File costs extra system
// calls on each (fcntl to make the descriptor non-blocking, registration
// with the network poller, an lstat inside os.Rename), which showed up as a
// fifth of the fs store's background writer's CPU time.
package sysfile

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/thoughtbox-bench/tbbench/server/tmpfile"
)

// Open opens path with the given flags (O_CLOEXEC is added), retrying on
// EINTR.
func Open(path string, flags int, perm uint32) (int, error) {
	for {
		fd, err := syscall.Open(path, flags|syscall.O_CLOEXEC, perm)
		if err == nil {
			return fd, nil
		}
		if !errors.Is(err, syscall.EINTR) {
			return -1, &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
}

// Write writes all of data to fd, the file at path (named in errors).
func Write(fd int, path string, data []byte) error {
	_, err := WriteN(fd, path, data)
	return err
}

// WriteN is Write, and says how many bytes of data it wrote: all of them,
// or, with an error, those written before it.
func WriteN(fd int, path string, data []byte) (int, error) {
	written := 0
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return written, &os.PathError{Op: "write", Path: path, Err: err}
		}
		if n == 0 {
			return written, &os.PathError{Op: "write", Path: path, Err: syscall.EIO}
		}
		written += n
		data = data[n:]
	}
	return written, nil
}

// CutLast cuts the last n bytes off the file open at fd (the file at path,
// named in errors), as when an append wrote only part of what it had to
// and nothing was written after it.
func CutLast(fd int, path string, n int64) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Size < n {
		return &os.PathError{Op: "truncate", Path: path, Err: syscall.EINVAL}
	}
	if err := syscall.Ftruncate(fd, st.Size-n); err != nil {
		return &os.PathError{Op: "truncate", Path: path, Err: err}
	}
	return nil
}

// Close closes fd, the file at path (named in errors).
func Close(fd int, path string) error {
	if err := syscall.Close(fd); err != nil {
		return &os.PathError{Op: "close", Path: path, Err: err}
	}
	return nil
}

// CreateTemp creates a new file in dir named prefix + a random number +
// suffix, like os.CreateTemp, and returns its descriptor and path.
func CreateTemp(dir, prefix, suffix string) (int, string, error) {
	for try := 0; ; try++ {
		name := dir + string(os.PathSeparator) + prefix + strconv.FormatUint(uint64(rand.Uint32()), 10) + suffix
		fd, err := Open(name, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL, 0o600)
		if err == nil {
			return fd, name, nil
		}
		if errors.Is(err, os.ErrExist) && try < 10000 {
			continue
		}
		return -1, "", err
	}
}

// Rename renames oldpath to newpath, replacing newpath.
func Rename(oldpath, newpath string) error {
	if err := syscall.Rename(oldpath, newpath); err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	return nil
}

// WriteAtomic writes data to path through a temporary file in tmpDir (a
// directory on path's file system) and a rename, so that readers see the
// old content or the new, never a torn one. The temporary file is named
// for path's base and this process (tmpfile.Prefix), and created 0600 less
// the umask. Nothing is created when tmpDir or path's directory is missing:
// the error is then os.ErrNotExist, for the caller to create them and try
// again.
func WriteAtomic(tmpDir, path string, data []byte) error {
	fd, tmp, err := CreateTemp(tmpDir, tmpfile.Prefix(filepath.Base(path)), tmpfile.Suffix)
	if err != nil {
		return err
	}
	werr := Write(fd, tmp, data)
	cerr := Close(fd, tmp)
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}
