package pace

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fifoThreads returns the threads of this process whose policy is
// SCHED_FIFO.
func fifoThreads(t *testing.T) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var fifo []int
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		a, err := unix.SchedGetAttr(tid, 0)
		if errors.Is(err, unix.ESRCH) {
			continue // exited meanwhile
		}
		if err != nil {
			t.Fatal(err)
		}
		if a.Policy == unix.SCHED_FIFO {
			fifo = append(fifo, tid)
		}
	}
	return fifo
}

// osThread runs functions on one goroutine locked to its own OS thread.
type osThread struct {
	do chan func()
}

// newOSThread starts the goroutine; stop ends it, and its thread with it.
func newOSThread(t *testing.T) *osThread {
	th := &osThread{do: make(chan func())}
	ready := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		close(ready)
		for f := range th.do {
			f()
		}
	}()
	<-ready
	t.Cleanup(func() { close(th.do) })
	return th
}

// run runs f on the thread and waits for it.
func (th *osThread) run(f func()) {
	done := make(chan struct{})
	th.do <- func() { defer close(done); f() }
	<-done
}

// TestRTThreadMovesWithTheGoroutine checks that one thread at a time holds
// the priority, that it moves to the goroutine's new thread, that the old
// one gets its attributes back and that close leaves no thread at it.
func TestRTThreadMovesWithTheGoroutine(t *testing.T) {
	if err := RealTimePermitted(); err != nil {
		var rt rtThread
		err := rt.enter()
		if !errors.Is(err, unix.EPERM) {
			t.Fatalf("without permission enter says %v, want EPERM", err)
		}
		if got := fifoThreads(t); len(got) != 0 {
			t.Fatalf("refused, yet threads %v are SCHED_FIFO", got)
		}
		t.Logf("real-time priority refused here (%v): checked the refusal only", err)
		return
	}
	one, two := newOSThread(t), newOSThread(t)
	var rt rtThread
	var first, second int
	var before *unix.SchedAttr
	one.run(func() {
		first = unix.Gettid()
		before, _ = unix.SchedGetAttr(0, 0)
		if err := rt.enter(); err != nil {
			t.Error(err)
			return
		}
		a, _ := unix.SchedGetAttr(0, 0)
		if a.Policy != unix.SCHED_FIFO || a.Priority != rtPriority || a.Flags&unix.SCHED_FLAG_RESET_ON_FORK == 0 {
			t.Errorf("thread attributes %+v, want SCHED_FIFO %d with reset-on-fork", a, rtPriority)
		}
		rt.leave()
	})
	if got := fifoThreads(t); len(got) != 1 || got[0] != first {
		t.Fatalf("after enter SCHED_FIFO threads %v, want [%d]", got, first)
	}
	one.run(func() {
		if err := rt.enter(); err != nil { // the same thread: nothing moves
			t.Error(err)
			return
		}
		rt.leave()
	})
	two.run(func() {
		second = unix.Gettid()
		if err := rt.enter(); err != nil {
			t.Error(err)
			return
		}
		rt.leave()
	})
	if got := fifoThreads(t); len(got) != 1 || got[0] != second {
		t.Fatalf("after the move SCHED_FIFO threads %v, want only %d (not %d)", got, second, first)
	}
	after, err := unix.SchedGetAttr(first, 0)
	if err != nil {
		t.Fatal(err)
	}
	if *after != *before {
		t.Fatalf("the first thread's attributes are %+v, were %+v", after, before)
	}
	if err := rt.close(); err != nil {
		t.Fatal(err)
	}
	if got := fifoThreads(t); len(got) != 0 {
		t.Fatalf("after close SCHED_FIFO threads %v, want none", got)
	}
}

// TestRTThreadChildrenDoNotInherit checks that a process started from the
// real-time thread (a stdio server a user starts, say) runs at an ordinary
// priority.
func TestRTThreadChildrenDoNotInherit(t *testing.T) {
	if err := RealTimePermitted(); err != nil {
		t.Logf("real-time priority refused here (%v): no child can inherit it", err)
		if got := fifoThreads(t); len(got) != 0 {
			t.Fatalf("threads %v are SCHED_FIFO", got)
		}
		return
	}
	var rt rtThread
	var policy uint32 = 99
	newOSThread(t).run(func() {
		if err := rt.enter(); err != nil {
			t.Error(err)
			return
		}
		defer rt.close()
		defer rt.leave()
		cmd := exec.Command("sleep", "5")
		if err := cmd.Start(); err != nil {
			t.Error(err)
			return
		}
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		a, err := unix.SchedGetAttr(cmd.Process.Pid, 0)
		if err != nil {
			t.Error(err)
			return
		}
		policy = a.Policy
	})
	if policy != unix.SCHED_NORMAL {
		t.Fatalf("a child of the real-time thread has policy %d, want SCHED_NORMAL", policy)
	}
}

// TestOpenRealTime runs the open executor with the Real clock in each mode:
// where real-time priority is permitted the run says it used it, and no
// thread keeps it afterwards; where it is not, auto runs without and says
// why, and on refuses to run.
func TestOpenRealTime(t *testing.T) {
	permitted := RealTimePermitted()
	for _, mode := range []RealTime{RealTimeOff, RealTimeAuto, RealTimeOn} {
		t.Run(mode.String(), func(t *testing.T) {
			o := &Open{Pacer: Constant{Rate: 2000}, Duration: 200 * time.Millisecond, MaxUsers: 4, RealTime: mode}
			var calls sync.WaitGroup
			var mu sync.Mutex
			procs := map[int]bool{}
			base := runtime.GOMAXPROCS(0)
			var first time.Time
			res, err := o.Run(context.Background(), func(_ context.Context, _ int, scheduled time.Time) {
				calls.Go(func() {})
				mu.Lock()
				defer mu.Unlock()
				if first.IsZero() {
					first = scheduled
				}
				// Not the last arrivals: their users may run after Run has
				// given the processor back.
				if scheduled.Sub(first) < 150*time.Millisecond {
					procs[runtime.GOMAXPROCS(0)] = true
				}
			})
			calls.Wait()
			if got := runtime.GOMAXPROCS(0); got != base {
				t.Errorf("GOMAXPROCS %d after Run, was %d", got, base)
			}
			if mode == RealTimeOn && permitted != nil {
				if err == nil || res.Started != 0 {
					t.Fatalf("on without permission: err %v, %d started; want an error and nothing started", err, res.Started)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Arrivals() != 400 || res.Started+res.Dropped != 400 || res.Lag.TotalCount() != int64(res.Started) {
				t.Fatalf("%d arrivals (%d started, %d dropped, %d lags), want 400", res.Arrivals(), res.Started, res.Dropped, res.Lag.TotalCount())
			}
			wantRT := mode != RealTimeOff && permitted == nil
			if res.RealTime != wantRT {
				t.Fatalf("RealTime %v, want %v (permission: %v)", res.RealTime, wantRT, permitted)
			}
			switch {
			case mode == RealTimeOff && res.RealTimeErr != nil:
				t.Fatalf("off, yet RealTimeErr %v", res.RealTimeErr)
			case mode == RealTimeAuto && permitted != nil && res.RealTimeErr == nil:
				t.Fatal("auto without permission: RealTimeErr is nil, want the refusal")
			case wantRT && res.RealTimeErr != nil:
				t.Fatalf("real-time run with RealTimeErr %v", res.RealTimeErr)
			}
			if got := fifoThreads(t); len(got) != 0 {
				t.Fatalf("after Run SCHED_FIFO threads %v, want none", got)
			}
			// The processor the scheduler keeps is made up for while it runs.
			want := base
			if wantRT {
				want++
			}
			if len(procs) != 1 || !procs[want] {
				t.Fatalf("GOMAXPROCS during the run %v, want only %d", procs, want)
			}
		})
	}
}
