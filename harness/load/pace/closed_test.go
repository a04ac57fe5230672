package pace

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// step advances clk to the next deadline each time want goroutines sleep on
// it, until done is closed.
func step(t *testing.T, clk *Fake, want int, done <-chan struct{}) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		changed := clk.Changed()
		if clk.Sleepers() >= want {
			clk.AdvanceToNext()
			continue
		}
		select {
		case <-done:
			return
		case <-changed:
		case <-timeout:
			t.Fatal("the executor is stuck")
		}
	}
}

func TestClosedDurationAndThink(t *testing.T) {
	clk := NewFake(epoch)
	c := &Closed{Users: 2, Duration: time.Second, Think: 100 * time.Millisecond, Clock: clk}
	var mu sync.Mutex
	starts := map[int][]time.Duration{}
	fn := func(_ context.Context, user int, scheduled time.Time) {
		mu.Lock()
		starts[user] = append(starts[user], scheduled.Sub(epoch))
		mu.Unlock()
	}
	done, res, err := runAsync(t.Context(), c.Run, fn)
	step(t, clk, 3, done) // two users thinking and the duration timer
	if *err != nil {
		t.Fatal(*err)
	}
	var want []time.Duration
	for i := range 10 {
		want = append(want, time.Duration(i)*100*time.Millisecond)
	}
	for u := range 2 {
		if !slices.Equal(starts[u], want) {
			t.Fatalf("user %d started at %v, want %v", u, starts[u], want)
		}
	}
	if res.Started != 20 || res.Completed != 20 || res.Dropped != 0 || res.Lag != nil {
		t.Fatalf("result %+v", *res)
	}
	if d := res.Scheduled.Sub(res.Start); d != time.Second {
		t.Fatalf("scheduled for %v, want 1s", d)
	}
}

func TestClosedIterations(t *testing.T) {
	clk := NewFake(epoch) // never advanced: only the iterations end the run
	c := &Closed{Users: 3, Iterations: 10, Clock: clk}
	var mu sync.Mutex
	perUser := map[int]int{}
	res, err := c.Run(t.Context(), func(_ context.Context, user int, _ time.Time) {
		mu.Lock()
		perUser[user]++
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range perUser {
		total += n
	}
	if res.Started != 10 || res.Completed != 10 || total != 10 {
		t.Fatalf("started %d, completed %d, calls %d; want 10", res.Started, res.Completed, total)
	}
	if clk.Sleepers() != 0 {
		t.Fatal("the duration timer outlived the run")
	}
}

func TestClosedGracefulStop(t *testing.T) {
	clk := NewFake(epoch)
	c := &Closed{Users: 1, Duration: time.Second, GracefulStop: 2 * time.Second, Clock: clk}
	started := make(chan struct{})
	fn := func(ctx context.Context, _ int, _ time.Time) { close(started); <-ctx.Done() }
	done, res, err := runAsync(t.Context(), c.Run, fn)
	// The clock moves only once the user is in its iteration: moved
	// earlier, the duration could pass before the user started.
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the user never started")
	}
	step(t, clk, 1, done)
	if *err != nil {
		t.Fatal(*err)
	}
	if res.Started != 1 || res.Interrupted != 1 || res.Completed != 0 {
		t.Fatalf("result %+v", *res)
	}
	if d := res.End.Sub(res.Start); d != 3*time.Second {
		t.Fatalf("ended after %v, want 1s + 2s graceful stop", d)
	}
}

func TestClosedCancel(t *testing.T) {
	c := &Closed{Users: 2, Duration: time.Hour}
	res := runCancelled(t, c.Run)
	if res.Started != res.Completed+res.Interrupted {
		t.Fatalf("result %+v", res)
	}
}

// runCancelled runs an executor meant to last an hour, with iterations of
// a millisecond, under a context that ends after 50 ms: it must return the
// context's error, and soon, having started some iterations.
func runCancelled(t *testing.T, run func(context.Context, Func) (Result, error)) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := run(ctx, func(ctx context.Context, _ int, _ time.Time) {
		select {
		case <-ctx.Done():
		case <-time.After(time.Millisecond):
		}
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 5*time.Second || res.Started == 0 {
		t.Fatalf("ran %v, started %d", time.Since(start), res.Started)
	}
	return res
}

func TestClosedRealClockDuration(t *testing.T) {
	c := &Closed{Users: 4, Duration: 100 * time.Millisecond, Think: time.Millisecond}
	res, err := c.Run(t.Context(), func(context.Context, int, time.Time) {})
	if err != nil {
		t.Fatal(err)
	}
	if res.Started < 4 || res.Started != res.Completed {
		t.Fatalf("result %+v", res)
	}
	if d := res.End.Sub(res.Start); d < 100*time.Millisecond || d > 5*time.Second {
		t.Fatalf("ran for %v", d)
	}
}

func TestClosedValidation(t *testing.T) {
	for _, c := range []*Closed{{}, {Users: 1, Duration: -1}, {Users: 1, Think: -1}} {
		if _, err := c.Run(t.Context(), func(context.Context, int, time.Time) {}); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}
