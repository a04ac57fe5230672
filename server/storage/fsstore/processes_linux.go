package fsstore

import (
	"encoding/binary"
	"errors"
	"io"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/thoughtbox-bench/tbbench/server/sysfile"
)

// processes is a store's handle on the project's register (processes.go):
// the file, open while the store is, with the store's read lock on it. A
// nil *processes knows nothing: every look runs.
type processes struct {
	mu sync.RWMutex // close waits for state
	fd int          // -1 once closed
}

// openProcesses registers the store in the register at path: it takes the
// read lock and counts itself in. It returns nil when the register cannot
// be used (a file system without open file description locks, say); the
// store then looks for other processes' changes every time, as it always
// did, and the others do not see it (as a process of an earlier build).
func openProcesses(path string) *processes {
	fd, err := sysfile.Open(path, unix.O_RDWR|unix.O_CREAT, 0o600)
	if err != nil {
		return nil
	}
	p := &processes{fd: fd}
	if err := p.lock(unix.F_OFD_SETLK, unix.F_RDLCK, processesLive); err != nil {
		p.close()
		return nil
	}
	// A store that could not count itself in stays registered as open:
	// the others see it, and look for its changes while it is.
	_ = p.countIn()
	return p
}

// lock sets (or with F_UNLCK releases) an open file description lock on
// one byte of the register.
func (p *processes) lock(cmd int, kind int16, at int64) error {
	lk := unix.Flock_t{Type: kind, Whence: io.SeekStart, Start: at, Len: 1}
	for {
		err := unix.FcntlFlock(uintptr(p.fd), cmd, &lk)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// countIn adds one to the count of stores ever opened, under a write lock
// of its own byte so that two stores opening at once both count.
func (p *processes) countIn() error {
	if err := p.lock(unix.F_OFD_SETLKW, unix.F_WRLCK, processesCounting); err != nil {
		return err
	}
	defer p.lock(unix.F_OFD_SETLK, unix.F_UNLCK, processesCounting)
	n, err := p.count()
	if err != nil {
		return err
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], n+1)
	if _, err := unix.Pwrite(p.fd, b[:], processesCount); err != nil {
		return err
	}
	return nil
}

// count reads the count of stores ever opened (0 in a new register).
func (p *processes) count() (uint64, error) {
	var b [8]byte
	n, err := unix.Pread(p.fd, b[:], processesCount)
	if err != nil {
		return 0, err
	}
	if n < len(b) {
		return 0, nil
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// state reads the count, then asks whether another store holds a read
// lock, in that order: a store that opens in between is either seen open
// or has not counted itself in yet (it locks before it counts).
func (p *processes) state() lookState {
	if p == nil {
		return lookState{}
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.fd < 0 {
		return lookState{}
	}
	n, err := p.count()
	if err != nil {
		return lookState{}
	}
	// A write lock would conflict with every other store's read lock; our
	// own, on this open file description, does not count.
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart, Start: processesLive, Len: 1}
	if err := unix.FcntlFlock(uintptr(p.fd), unix.F_OFD_GETLK, &lk); err != nil {
		return lookState{}
	}
	return lookState{count: n, alone: lk.Type == unix.F_UNLCK, valid: true}
}

// close leaves the register: the read lock goes with the descriptor. A
// second close does nothing.
func (p *processes) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fd >= 0 {
		_ = unix.Close(p.fd)
		p.fd = -1
	}
}
