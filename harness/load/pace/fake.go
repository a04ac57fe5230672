package pace

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Fake is a Clock for tests: its time only moves when Advance, Set or
// AdvanceToNext is called, and then it wakes, in deadline order, every
// sleeper whose deadline has been reached. It is safe for concurrent use.
type Fake struct {
	mu       sync.Mutex
	now      time.Time
	sleepers []*sleeper
	changed  chan struct{} // closed and replaced whenever sleepers change
}

type sleeper struct {
	deadline time.Time
	wake     chan struct{}
}

// NewFake returns a Fake clock that reads start.
func NewFake(start time.Time) *Fake {
	return &Fake{now: start, changed: make(chan struct{})}
}

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Sleep blocks until the fake time has been advanced by d, or ctx is done.
func (f *Fake) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	s := &sleeper{deadline: f.now.Add(d), wake: make(chan struct{})}
	f.sleepers = append(f.sleepers, s)
	f.notifyLocked()
	f.mu.Unlock()
	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		f.mu.Lock()
		f.removeLocked(s)
		f.mu.Unlock()
		return ctx.Err()
	}
}

// Advance moves the time forward by d and wakes the sleepers that are due.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	f.setLocked(f.now.Add(d))
	f.mu.Unlock()
}

// Set moves the time to t (never backwards) and wakes the sleepers that are
// due.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	if t.After(f.now) {
		f.setLocked(t)
	}
	f.mu.Unlock()
}

// AdvanceToNext moves the time to the earliest sleeper's deadline, wakes the
// sleepers due then and returns the new time. It returns false, without
// moving the time, when nobody sleeps.
func (f *Fake) AdvanceToNext() (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.sleepers) == 0 {
		return f.now, false
	}
	next := f.sleepers[0].deadline
	for _, s := range f.sleepers[1:] {
		if s.deadline.Before(next) {
			next = s.deadline
		}
	}
	if next.After(f.now) {
		f.setLocked(next)
	} else {
		f.setLocked(f.now)
	}
	return f.now, true
}

// NextDeadline returns the earliest deadline of the goroutines sleeping on
// the clock; false when nobody sleeps.
func (f *Fake) NextDeadline() (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.sleepers) == 0 {
		return time.Time{}, false
	}
	next := f.sleepers[0].deadline
	for _, s := range f.sleepers[1:] {
		if s.deadline.Before(next) {
			next = s.deadline
		}
	}
	return next, true
}

// Sleepers returns the number of goroutines sleeping on the clock.
func (f *Fake) Sleepers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.sleepers)
}

// BlockUntil waits until at least n goroutines sleep on the clock, or ctx is
// done.
func (f *Fake) BlockUntil(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		if len(f.sleepers) >= n {
			f.mu.Unlock()
			return nil
		}
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Changed returns a channel closed at the next change of the set of sleepers.
func (f *Fake) Changed() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changed
}

func (f *Fake) setLocked(t time.Time) {
	f.now = t
	var due, rest []*sleeper
	for _, s := range f.sleepers {
		if s.deadline.After(t) {
			rest = append(rest, s)
		} else {
			due = append(due, s)
		}
	}
	if len(due) == 0 {
		return
	}
	sort.SliceStable(due, func(i, j int) bool { return due[i].deadline.Before(due[j].deadline) })
	f.sleepers = rest
	for _, s := range due {
		close(s.wake)
	}
	f.notifyLocked()
}

func (f *Fake) removeLocked(s *sleeper) {
	for i, o := range f.sleepers {
		if o == s {
			f.sleepers = append(f.sleepers[:i], f.sleepers[i+1:]...)
			f.notifyLocked()
			return
		}
	}
}

func (f *Fake) notifyLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}
