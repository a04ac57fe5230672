package pace

import (
	"context"
	"runtime"
	"time"
)

// Clock tells the time and waits. Executors take all their time from a Clock
// so that tests can drive them deterministically with a Fake.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits for d to pass. It returns nil when d has passed and
	// ctx.Err() when ctx is done first. A d of zero or less returns at once
	// (with ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
}

// DefaultSpin is the spin window of the zero Real clock.
const DefaultSpin = 100 * time.Microsecond

// timerSlack is how much earlier than the deadline a Real clock's runtime
// timer is set to fire: Go's timers can wake a millisecond late when the
// process is idle.
const timerSlack = 1500 * time.Microsecond

// Real is the wall clock, with a precise Sleep: it waits on a runtime timer
// until timerSlack before the deadline, then with the operating system's
// high-resolution sleep (nanosleep on Linux) until Spin before it, and spins,
// yielding the processor, for the rest. An open executor at thousands of
// arrivals per second keeps its schedule lag well under a millisecond so.
type Real struct {
	// Spin is the last part of each wait, spun instead of slept; zero means
	// DefaultSpin and a negative value turns spinning off.
	Spin time.Duration
}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Sleep waits for d or until ctx is done, whichever comes first.
func (r Real) Sleep(ctx context.Context, d time.Duration) error {
	return r.sleep(ctx, d, false)
}

// sleepHeld is Sleep for a goroutine locked to a real-time thread: below
// timerSlack it sleeps in system calls the runtime does not see, so the
// goroutine keeps its processor and runs the moment the thread wakes, and it
// spins without yielding.
func (r Real) sleepHeld(ctx context.Context, d time.Duration) error {
	return r.sleep(ctx, d, true)
}

func (r Real) sleep(ctx context.Context, d time.Duration, held bool) error {
	if d <= 0 {
		return ctx.Err()
	}
	deadline := time.Now().Add(d)
	spin := r.Spin
	if spin == 0 {
		spin = DefaultSpin
	}
	spin = max(spin, 0)
	if d > timerSlack {
		t := time.NewTimer(d - timerSlack)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	for {
		left := time.Until(deadline) - spin
		if left <= 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if held {
			heldSleep(min(left, time.Millisecond))
			continue
		}
		// Let the goroutines readied on this processor (a user just handed
		// an arrival) run first: during the system call they could
		// otherwise wait until the runtime takes the processor back.
		runtime.Gosched()
		preciseSleep(min(left, time.Millisecond))
	}
	for time.Now().Before(deadline) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !held {
			runtime.Gosched()
		}
	}
	return ctx.Err()
}
