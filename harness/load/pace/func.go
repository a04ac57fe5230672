package pace

import (
	"context"
	"sync"
	"time"
)

// Func is one iteration of a virtual user. user is the user's index (0 to
// the pool size − 1); scheduled is when the iteration was due (open
// executor) or started (closed executor), the time latency is measured from.
// ctx is cancelled when the run is aborted or its graceful stop expires; an
// iteration must return promptly then.
type Func func(ctx context.Context, user int, scheduled time.Time)

// DefaultGracefulStop is how long, after the schedule has ended, the
// iterations in flight may run before their context is cancelled, when an
// executor's GracefulStop is zero (k6's default).
const DefaultGracefulStop = 30 * time.Second

// DefaultMaxDuration bounds a closed executor given a number of iterations
// and no duration (k6's maxDuration).
const DefaultMaxDuration = 10 * time.Minute

func clockOr(c Clock) Clock {
	if c == nil {
		return Real{}
	}
	return c
}

func graceOr(g time.Duration) time.Duration {
	if g == 0 {
		return DefaultGracefulStop
	}
	return g
}

// graceThenCancel waits grace on clk (a negative grace does not wait) and then
// calls cancel, unless ctx is done first.
func graceThenCancel(ctx context.Context, clk Clock, grace time.Duration, cancel context.CancelFunc) {
	if grace > 0 && clk.Sleep(ctx, grace) != nil {
		return
	}
	if ctx.Err() == nil {
		cancel()
	}
}

// background runs f in a goroutine and returns a function that waits for it.
func background(f func()) (wait func()) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f()
	}()
	return wg.Wait
}
