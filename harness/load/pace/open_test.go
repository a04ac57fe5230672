package pace

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
	"time"
)

// drive advances clk to each sleeper's deadline up to limit, until done is
// closed. Deadlines after limit (a graceful stop) are left alone.
func drive(t *testing.T, clk *Fake, limit time.Time, done <-chan struct{}) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		changed := clk.Changed()
		if next, ok := clk.NextDeadline(); ok && !next.After(limit) {
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

// runAsync runs ex in a goroutine; the returned channel is closed when it has
// returned, and the pointers then hold its result.
func runAsync(ctx context.Context, run func(context.Context, Func) (Result, error), fn Func) (<-chan struct{}, *Result, *error) {
	done := make(chan struct{})
	var res Result
	var err error
	go func() {
		defer close(done)
		res, err = run(ctx, fn)
	}()
	return done, &res, &err
}

func TestOpenConstantExactArrivals(t *testing.T) {
	clk := NewFake(epoch)
	o := &Open{Pacer: Constant{Rate: 10}, Duration: time.Second, MaxUsers: 20, Clock: clk}
	var mu sync.Mutex
	var got []time.Duration
	fn := func(_ context.Context, _ int, scheduled time.Time) {
		mu.Lock()
		got = append(got, scheduled.Sub(epoch))
		mu.Unlock()
	}
	done, res, err := runAsync(t.Context(), o.Run, fn)
	drive(t, clk, epoch.Add(time.Second), done)
	if *err != nil {
		t.Fatal(*err)
	}
	slices.Sort(got)
	var want []time.Duration
	for i := range 10 {
		want = append(want, time.Duration(i)*100*time.Millisecond)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("scheduled times %v, want %v", got, want)
	}
	if res.Started != 10 || res.Dropped != 0 || res.Completed != 10 || res.Interrupted != 0 {
		t.Fatalf("result %+v", *res)
	}
	if res.Lag.TotalCount() != 10 {
		t.Fatalf("lag has %d values, want 10", res.Lag.TotalCount())
	}
	if d := res.Scheduled.Sub(res.Start); d != time.Second {
		t.Fatalf("scheduled for %v, want 1s", d)
	}
	if r := res.Rate(); r != 10 {
		t.Fatalf("Rate = %v, want 10", r)
	}
}

func TestOpenRampArrivalCount(t *testing.T) {
	clk := NewFake(epoch)
	o := &Open{Pacer: ramp, Duration: ramp.Duration(), MaxUsers: 200, Clock: clk}
	var mu sync.Mutex
	var got []time.Time
	fn := func(_ context.Context, _ int, scheduled time.Time) {
		mu.Lock()
		got = append(got, scheduled)
		mu.Unlock()
	}
	done, res, err := runAsync(t.Context(), o.Run, fn)
	drive(t, clk, epoch.Add(ramp.Duration()), done)
	if *err != nil {
		t.Fatal(*err)
	}
	if res.Started != 175 || res.Dropped != 0 || len(got) != 175 {
		t.Fatalf("started %d, dropped %d, calls %d; want 175 started", res.Started, res.Dropped, len(got))
	}
	// The arrivals in second k are ceil(A(k+1)) - ceil(A(k)), A the
	// integral of the rate: 1 1 3 3 5 5 7 7 9 9 10 ... 10 9 7 5 3 1.
	perSecond := make([]int, 25)
	for _, s := range got {
		perSecond[int(s.Sub(epoch)/time.Second)]++
	}
	for k, n := range perSecond {
		a := math.Ceil(ramp.Arrivals(time.Duration(k)*time.Second) - 1e-9)
		b := math.Ceil(ramp.Arrivals(time.Duration(k+1)*time.Second) - 1e-9)
		if n != int(b-a) {
			t.Fatalf("second %d has %d arrivals, want %v (all: %v)", k, n, b-a, perSecond)
		}
	}
	if perSecond[0] != 1 || perSecond[12] != 10 || perSecond[24] != 1 {
		t.Fatalf("arrivals per second %v", perSecond)
	}
}

// The callback gets the scheduled time, not the late wake-up time, and the
// lateness is recorded as lag.
func TestOpenLateWakeUpRecordsLag(t *testing.T) {
	clk := NewFake(epoch)
	o := &Open{Pacer: Constant{Rate: 10}, Duration: 300 * time.Millisecond, MaxUsers: 3, Clock: clk}
	calls := make(chan time.Time)
	fn := func(_ context.Context, _ int, scheduled time.Time) { calls <- scheduled }
	done, res, err := runAsync(t.Context(), o.Run, fn)

	if s := <-calls; s != epoch {
		t.Fatalf("arrival 0 scheduled %v", s)
	}
	mustBlock(t, clk)
	clk.Advance(150 * time.Millisecond) // arrival 1 was due at 100 ms
	if s := <-calls; s != epoch.Add(100*time.Millisecond) {
		t.Fatalf("arrival 1 scheduled at %v, want +100ms", s.Sub(epoch))
	}
	mustBlock(t, clk)
	clk.Advance(50 * time.Millisecond)
	if s := <-calls; s != epoch.Add(200*time.Millisecond) {
		t.Fatalf("arrival 2 scheduled at %v, want +200ms", s.Sub(epoch))
	}
	mustBlock(t, clk) // the window lasts until 300 ms
	clk.Advance(100 * time.Millisecond)
	<-done
	if *err != nil {
		t.Fatal(*err)
	}
	if res.Started != 3 || res.Dropped != 0 {
		t.Fatalf("result %+v", *res)
	}
	if got := res.LagQuantile(100); (got - 50*time.Millisecond).Abs() > 50*time.Microsecond {
		t.Fatalf("max lag %v, want 50ms (within 0.1%%)", got)
	}
	if got := res.LagQuantile(50); got != 0 {
		t.Fatalf("median lag %v, want 0", got)
	}
}

func TestOpenDropsWhenAllUsersBusy(t *testing.T) {
	clk := NewFake(epoch)
	var drops []time.Duration
	o := &Open{
		Pacer: Constant{Rate: 10}, Duration: time.Second, MaxUsers: 2, Clock: clk,
		GracefulStop: 5 * time.Second,
		OnDrop:       func(s time.Time) { drops = append(drops, s.Sub(epoch)) },
	}
	users := make(chan int, 10)
	fn := func(ctx context.Context, user int, _ time.Time) {
		users <- user
		<-ctx.Done() // busy until the graceful stop expires
	}
	done, res, err := runAsync(t.Context(), o.Run, fn)
	drive(t, clk, epoch.Add(time.Hour), done)
	if *err != nil {
		t.Fatal(*err)
	}
	if res.Started != 2 || res.Dropped != 8 || res.Arrivals() != 10 {
		t.Fatalf("started %d, dropped %d; want 2 and 8", res.Started, res.Dropped)
	}
	if res.Interrupted != 2 || res.Completed != 0 {
		t.Fatalf("completed %d, interrupted %d; want 0 and 2", res.Completed, res.Interrupted)
	}
	if res.DroppedRatio() != 0.8 {
		t.Fatalf("DroppedRatio = %v", res.DroppedRatio())
	}
	want := []time.Duration{}
	for i := 2; i < 10; i++ {
		want = append(want, time.Duration(i)*100*time.Millisecond)
	}
	if !slices.Equal(drops, want) {
		t.Fatalf("dropped arrivals at %v, want %v", drops, want)
	}
	if a, b := <-users, <-users; a == b {
		t.Fatalf("both arrivals went to user %d", a)
	}
	// The graceful stop ran on the clock: 1 s of schedule, then 5 s.
	if d := res.End.Sub(res.Start); d != 6*time.Second {
		t.Fatalf("ended after %v, want 6s", d)
	}
}

func TestOpenCancelStopsScheduling(t *testing.T) {
	clk := NewFake(epoch)
	o := &Open{Pacer: Constant{Rate: 10}, Duration: time.Hour, MaxUsers: 100, Clock: clk}
	ctx, cancel := context.WithCancel(t.Context())
	done, res, err := runAsync(ctx, o.Run, func(context.Context, int, time.Time) {})
	for range 5 {
		mustBlock(t, clk)
		clk.AdvanceToNext()
	}
	mustBlock(t, clk)
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancellation")
	}
	if !errors.Is(*err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", *err)
	}
	if res.Started != 6 || res.Dropped != 0 {
		t.Fatalf("started %d, dropped %d; want 6 and 0", res.Started, res.Dropped)
	}
}

func TestOpenRealClock(t *testing.T) {
	o := &Open{Pacer: Constant{Rate: 500}, Duration: 400 * time.Millisecond, MaxUsers: 4}
	var mu sync.Mutex
	seen := map[int]bool{}
	res, err := o.Run(t.Context(), func(_ context.Context, user int, _ time.Time) {
		mu.Lock()
		seen[user] = true
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Arrivals() != 200 {
		t.Fatalf("%d arrivals, want exactly 200", res.Arrivals())
	}
	// How many start depends on how busy the machine is (the rest are
	// dropped and counted); the rate itself is a benchmark's business.
	if res.Started == 0 {
		t.Fatalf("no arrival started (%d dropped)", res.Dropped)
	}
	if res.Completed != res.Started || res.Lag.TotalCount() != int64(res.Started) {
		t.Fatalf("result %+v", res)
	}
	for u := range seen {
		if u < 0 || u >= 4 {
			t.Fatalf("user index %d outside the pool", u)
		}
	}
	if d := res.End.Sub(res.Start); d < 398*time.Millisecond || d > 5*time.Second {
		t.Fatalf("ran for %v", d)
	}
}

func TestOpenRealClockCancel(t *testing.T) {
	o := &Open{Pacer: Constant{Rate: 1000}, Duration: time.Hour, MaxUsers: 2}
	runCancelled(t, o.Run)
}

func TestOpenValidation(t *testing.T) {
	for _, o := range []*Open{
		{Duration: time.Second, MaxUsers: 1},
		{Pacer: Constant{Rate: 1}, MaxUsers: 1},
		{Pacer: Constant{Rate: 1}, Duration: time.Second},
	} {
		if _, err := o.Run(t.Context(), func(context.Context, int, time.Time) {}); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func mustBlock(t *testing.T, clk *Fake) {
	t.Helper()
	if err := clk.BlockUntil(ctxT(t), 1); err != nil {
		t.Fatal("nobody sleeps on the clock: ", err)
	}
}
