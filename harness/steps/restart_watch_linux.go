package steps

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watchMask are the events a watch asks for: a file created, written
// (IN_MODIFY, which a write or a truncation raises under the name the file
// has then), renamed or removed. Not IN_CLOSE_WRITE: the kernel raises it
// when the last descriptor of a file opened for writing closes, under the
// name the file has by then, and that can be after a rename: a child the
// server's process forks while a temporary file is open holds a copy of its
// descriptor until the child's exec, so a file written, closed and renamed
// into place is reported as closed after writing under its final name.
const watchMask = unix.IN_CREATE | unix.IN_MODIFY | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE

// watchDir starts watching the files directly in dir with inotify; stop
// ends the watch and returns the changes it saw, in order.
func watchDir(dir string) (stop func() ([]fileEvent, error), err error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	if _, err := unix.InotifyAddWatch(fd, dir, watchMask); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("watching %s: %w", dir, err)
	}
	return func() ([]fileEvent, error) {
		defer unix.Close(fd)
		return readEvents(fd)
	}, nil
}

// readEvents reads every event queued on the inotify descriptor fd.
func readEvents(fd int) ([]fileEvent, error) {
	var events []fileEvent
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(fd, buf)
		if errors.Is(err, unix.EAGAIN) || n == 0 {
			return events, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading inotify events: %w", err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				return nil, errors.New("the inotify queue overflowed: the order of the writes is unknown")
			}
			start := off + unix.SizeofInotifyEvent
			name := strings.TrimRight(string(buf[start:start+int(ev.Len)]), "\x00")
			events = append(events, fileEvent{name: name, kind: kindOf(ev.Mask)})
			off = start + int(ev.Len)
		}
	}
}

// kindOf translates an inotify mask.
func kindOf(mask uint32) eventKind {
	switch {
	case mask&unix.IN_MOVED_TO != 0:
		return fileMovedIn
	case mask&unix.IN_MOVED_FROM != 0:
		return fileMovedAway
	case mask&unix.IN_CREATE != 0:
		return fileCreated
	case mask&unix.IN_DELETE != 0:
		return fileRemoved
	}
	return fileWritten
}
