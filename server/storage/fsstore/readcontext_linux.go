package fsstore

import (
	"os"
	"syscall"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/sysfile"
)

// readContextFile reads a context's file whole, into buf when it fits, and
// returns its modification time, with plain system calls: open, fstat,
// pread, close. (os.Open and *os.File cost a second fstat and the network
// poller's bookkeeping; a context is read on every 2026-era call.)
func readContextFile(path string, buf []byte) ([]byte, time.Time, error) {
	fd, err := sysfile.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, time.Time{}, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Size > maxContextFile {
		return nil, time.Time{}, tooBigContext(path, st.Size)
	}
	data := buf[:0]
	if int64(cap(data)) < st.Size {
		data = make([]byte, st.Size)
	}
	data = data[:st.Size]
	n := 0
	for n < len(data) {
		m, err := syscall.Pread(fd, data[n:], int64(n))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, time.Time{}, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			break // the file shrank since fstat
		}
		n += m
	}
	return data[:n], time.Unix(st.Mtim.Unix()), nil
}
