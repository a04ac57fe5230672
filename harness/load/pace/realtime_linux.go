package pace

import (
	"errors"
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// RealTimePermitted returns nil when this process may give a thread a
// real-time priority, and otherwise why not.
func RealTimePermitted() error {
	var rt rtThread
	if err := rt.enter(); err != nil {
		return err
	}
	rt.leave()
	return rt.close()
}

// rtThread carries a real-time priority along with the scheduler goroutine.
// Between enter and leave the goroutine is locked to its OS thread, and that
// thread holds SCHED_FIFO rtPriority; when enter finds the goroutine on
// another thread than last time, the priority moves: the old thread gets its
// former scheduling attributes back. close takes the priority back for good.
type rtThread struct {
	tid   int             // the thread holding the priority, 0 for none
	saved *unix.SchedAttr // its attributes before
}

// enter locks the calling goroutine to its thread and gives that thread the
// priority, taking it back from the thread that had it. On an error the
// goroutine is unlocked again, and no thread holds the priority unless the
// error says that the previous one kept it.
func (t *rtThread) enter() error {
	runtime.LockOSThread()
	tid := unix.Gettid()
	if tid == t.tid {
		return nil
	}
	if err := t.close(); err != nil {
		runtime.UnlockOSThread()
		return err
	}
	saved, err := unix.SchedGetAttr(tid, 0)
	if err == nil {
		err = unix.SchedSetAttr(tid, &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: rtPriority,
			Flags: unix.SCHED_FLAG_RESET_ON_FORK}, 0)
	}
	if err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("real-time priority refused: %w", err)
	}
	t.tid, t.saved = tid, saved
	return nil
}

// leave unlocks the goroutine and yields, so that a goroutine it has just
// made ready runs on this thread, which has a core, at once.
func (t *rtThread) leave() {
	runtime.UnlockOSThread()
	runtime.Gosched()
}

// close gives the thread holding the priority its former attributes back.
// A thread that has exited has nothing to give back.
func (t *rtThread) close() error {
	if t.tid == 0 {
		return nil
	}
	err := unix.SchedSetAttr(t.tid, t.saved, 0)
	if errors.Is(err, unix.ESRCH) {
		err = nil
	}
	if err != nil {
		err = fmt.Errorf("thread %d keeps its real-time priority: %w", t.tid, err)
	}
	t.tid, t.saved = 0, nil
	return err
}
