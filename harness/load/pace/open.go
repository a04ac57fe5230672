package pace

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Open is an open-model (arrival-rate) executor: arrivals come at the times
// its Pacer prescribes, whatever the target's speed, and each is run by an
// idle user of a fixed pool. An arrival that finds every user busy is
// dropped and counted — never queued, never skipped silently — so every
// arrival due is either started or dropped.
//
// Users are long-lived goroutines fed through channels and the scheduler
// sleeps until the next arrival, so the executor sustains thousands of
// arrivals per second with sub-millisecond schedule lag.
type Open struct {
	// Pacer says when arrivals are due.
	Pacer Pacer
	// Duration is how long arrivals are scheduled; arrivals due at or after
	// it are not made. Required.
	Duration time.Duration
	// MaxUsers is the size of the user pool. Required.
	MaxUsers int
	// GracefulStop is how long the iterations in flight at the end of the
	// schedule may run before their context is cancelled; zero means
	// DefaultGracefulStop and a negative value cancels them at once.
	GracefulStop time.Duration
	// Clock supplies the time; nil means Real{}.
	Clock Clock
	// OnDrop, if set, is called by the scheduler with the scheduled time of
	// each dropped arrival. It must return quickly.
	OnDrop func(scheduled time.Time)
	// RealTime says whether the scheduler waits for arrivals on a thread at
	// a real-time priority (see RealTime); it applies with the Real clock
	// only. The zero value is RealTimeOff.
	RealTime RealTime
}

// Run schedules arrivals for o.Duration, calls fn for each one that an idle
// user takes, waits for the iterations in flight (see GracefulStop) and
// returns what happened. When ctx is cancelled it stops scheduling, the
// iterations' context is cancelled too, and Run returns the partial Result
// with ctx.Err().
func (o *Open) Run(ctx context.Context, fn Func) (Result, error) {
	if o.Pacer == nil {
		return Result{}, errors.New("pace: open executor without a pacer")
	}
	if o.Duration <= 0 {
		return Result{}, errors.New("pace: open executor needs a positive duration")
	}
	if o.MaxUsers <= 0 {
		return Result{}, errors.New("pace: open executor needs at least one user")
	}
	clk := clockOr(o.Clock)
	var res Result
	sleep, rt, err := o.pacing(clk, &res)
	if err != nil {
		return Result{}, err
	}
	iterCtx, cancelIter := context.WithCancel(ctx)
	defer cancelIter()

	n := o.MaxUsers
	lag := newLagShards(n)
	idle := make(chan int, n)
	work := make([]chan time.Time, n)
	var completed, interrupted atomic.Uint64
	var users sync.WaitGroup
	for u := range n {
		work[u] = make(chan time.Time, 1)
		idle <- u
		users.Add(1)
		go func() {
			defer users.Done()
			for scheduled := range work[u] {
				lag.record(u, clk.Now().Sub(scheduled))
				fn(iterCtx, u, scheduled)
				if iterCtx.Err() != nil {
					interrupted.Add(1)
				} else {
					completed.Add(1)
				}
				idle <- u
			}
		}()
	}

	releaseProc := func() {}
	if rt != nil {
		releaseProc = addProc()
	}
	res.Start = clk.Now()
	err = o.schedule(ctx, clk, sleep, rt, &res, idle, work)
	releaseProc()
	res.Scheduled = clk.Now()
	if end := res.Start.Add(o.Duration); err == nil && res.Scheduled.After(end) {
		res.Scheduled = end
	}
	for _, w := range work {
		close(w)
	}

	drainCtx, drained := context.WithCancel(ctx)
	waitGrace := background(func() { graceThenCancel(drainCtx, clk, graceOr(o.GracefulStop), cancelIter) })
	users.Wait()
	drained()
	waitGrace()

	res.End = clk.Now()
	res.Completed = completed.Load()
	res.Interrupted = interrupted.Load()
	res.Lag = lag.merged()
	return res, err
}

// pacing returns how the scheduler sleeps and, when it is to wait on a
// real-time thread, that thread (nil otherwise); it sets res.RealTime, or
// res.RealTimeErr when the priority was asked for and refused. It fails only
// when o.RealTime is RealTimeOn and the priority is refused.
func (o *Open) pacing(clk Clock, res *Result) (sleep func(context.Context, time.Duration) error, rt *rtThread, err error) {
	real, ok := clk.(Real)
	if o.RealTime == RealTimeOff || !ok {
		return clk.Sleep, nil, nil
	}
	rt = &rtThread{}
	if err := rt.enter(); err != nil {
		if o.RealTime == RealTimeOn {
			return nil, nil, fmt.Errorf("pace: %w", err)
		}
		res.RealTimeErr = err
		return clk.Sleep, nil, nil
	}
	rt.leave()
	res.RealTime = true
	return real.sleepHeld, rt, nil
}

// schedule hands every arrival due before o.Duration to an idle user or
// counts it as dropped. It returns ctx.Err() when ctx ends it early. With rt,
// it waits for each arrival on rt's thread and, once the arrival is handed
// over, lets that thread run the user.
func (o *Open) schedule(ctx context.Context, clk Clock, sleep func(context.Context, time.Duration) error, rt *rtThread,
	res *Result, idle chan int, work []chan time.Time) (err error) {
	release := func() {
		if rt == nil {
			return
		}
		if err := rt.close(); err != nil {
			res.RealTimeErr = err
		}
		rt, sleep = nil, clk.Sleep
	}
	defer release()
	for i := uint64(0); ; i++ {
		at, ok := o.Pacer.Due(i)
		if !ok || at >= o.Duration {
			release()
			// The window lasts the whole duration even after the last arrival.
			return clk.Sleep(ctx, res.Start.Add(o.Duration).Sub(clk.Now()))
		}
		due := res.Start.Add(at)
		if rt != nil {
			if err := rt.enter(); err != nil {
				// The priority can't move to this thread: go on without.
				res.RealTime, res.RealTimeErr = false, err
				release()
			}
		}
		if wait := due.Sub(clk.Now()); wait > 0 {
			err = sleep(ctx, wait)
		} else {
			err = ctx.Err()
		}
		if err == nil {
			select {
			case u := <-idle:
				work[u] <- due
				res.Started++
			default:
				res.Dropped++
				if o.OnDrop != nil {
					o.OnDrop(due)
				}
			}
		}
		if rt != nil {
			rt.leave()
		}
		if err != nil {
			return err
		}
	}
}
