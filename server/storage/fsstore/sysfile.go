package fsstore

import (
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"syscall"
)

// The helpers below write files with plain system calls instead of
// *os.File. The background writer creates one file per thought and the
// journal is opened for every append; an *os.File costs extra system calls
// on each (fcntl to make the descriptor non-blocking, registration with the
// network poller, an lstat inside os.Rename), which showed up as a fifth of
// the writer's CPU time.

// sysOpen opens path with the given flags (O_CLOEXEC is added), retrying on
// EINTR.
func sysOpen(path string, flags int, perm uint32) (int, error) {
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

// sysWrite writes all of data to fd.
func sysWrite(fd int, path string, data []byte) error {
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "write", Path: path, Err: err}
		}
		if n == 0 {
			return &os.PathError{Op: "write", Path: path, Err: syscall.EIO}
		}
		data = data[n:]
	}
	return nil
}

// sysClose closes fd.
func sysClose(fd int, path string) error {
	if err := syscall.Close(fd); err != nil {
		return &os.PathError{Op: "close", Path: path, Err: err}
	}
	return nil
}

// createTemp creates a new file in dir named prefix + a random number +
// suffix, like os.CreateTemp, and returns its descriptor and path.
func createTemp(dir, prefix, suffix string) (int, string, error) {
	for try := 0; ; try++ {
		name := dir + string(os.PathSeparator) + prefix + strconv.FormatUint(uint64(rand.Uint32()), 10) + suffix
		fd, err := sysOpen(name, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL, 0o600)
		if err == nil {
			return fd, name, nil
		}
		if errors.Is(err, os.ErrExist) && try < 10000 {
			continue
		}
		return -1, "", err
	}
}

// sysRename renames oldpath to newpath, replacing newpath.
func sysRename(oldpath, newpath string) error {
	if err := syscall.Rename(oldpath, newpath); err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	return nil
}
