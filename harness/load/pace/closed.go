package pace

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Closed is a closed-model executor: Users users each run iterations back to
// back, with an optional think time between them, until the duration has
// passed or the iterations are used up.
type Closed struct {
	// Users is the number of concurrent users. Required.
	Users int
	// Iterations, when positive, is the number of iterations shared by all
	// users (k6's shared-iterations); zero means no limit.
	Iterations uint64
	// Duration is how long iterations are started; zero means
	// DefaultMaxDuration, which bounds an iterations-only run.
	Duration time.Duration
	// Think is the pause of a user between two iterations.
	Think time.Duration
	// GracefulStop is how long the iterations in flight when the duration
	// ends may run before their context is cancelled; zero means
	// DefaultGracefulStop and a negative value cancels them at once.
	GracefulStop time.Duration
	// Clock supplies the time; nil means Real{}.
	Clock Clock
}

// Run starts the users, waits until they have all stopped and returns what
// happened. The scheduled time passed to fn is the iteration's start. When
// ctx is cancelled the users stop, the iterations' context is cancelled too,
// and Run returns the partial Result with ctx.Err().
func (c *Closed) Run(ctx context.Context, fn Func) (Result, error) {
	if c.Users <= 0 {
		return Result{}, errors.New("pace: closed executor needs at least one user")
	}
	if c.Duration < 0 || c.Think < 0 {
		return Result{}, errors.New("pace: closed executor: negative duration or think time")
	}
	clk := clockOr(c.Clock)
	dur := c.Duration
	if dur == 0 {
		dur = DefaultMaxDuration
	}
	iterCtx, cancelIter := context.WithCancel(ctx)
	defer cancelIter()
	startCtx, stopStarting := context.WithCancel(ctx)
	defer stopStarting()
	runCtx, finished := context.WithCancel(ctx)
	defer finished()

	res := Result{Start: clk.Now()}
	end := res.Start.Add(dur)
	var started, completed, interrupted, claimed atomic.Uint64
	var stoppedAt atomic.Pointer[time.Time]
	stop := func() {
		t := clk.Now()
		stoppedAt.CompareAndSwap(nil, &t)
		stopStarting()
	}

	waitTimer := background(func() {
		if clk.Sleep(runCtx, dur) != nil {
			return
		}
		stop()
		graceThenCancel(runCtx, clk, graceOr(c.GracefulStop), cancelIter)
	})

	var users sync.WaitGroup
	for u := range c.Users {
		users.Add(1)
		go func() {
			defer users.Done()
			for {
				if startCtx.Err() != nil || !clk.Now().Before(end) {
					return
				}
				if c.Iterations > 0 && claimed.Add(1) > c.Iterations {
					return
				}
				started.Add(1)
				fn(iterCtx, u, clk.Now())
				if iterCtx.Err() != nil {
					interrupted.Add(1)
				} else {
					completed.Add(1)
				}
				if c.Think > 0 && clk.Sleep(startCtx, c.Think) != nil {
					return
				}
			}
		}()
	}
	users.Wait()
	stop()
	finished()
	waitTimer()

	res.Scheduled = *stoppedAt.Load()
	if res.Scheduled.After(end) {
		res.Scheduled = end
	}
	res.End = clk.Now()
	res.Started = started.Load()
	res.Completed = completed.Load()
	res.Interrupted = interrupted.Load()
	return res, ctx.Err()
}
