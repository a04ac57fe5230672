package pace

import (
	"math"
	"testing"
	"time"
)

func TestConstantDueAndPace(t *testing.T) {
	c := Constant{Rate: 10}
	for n, want := range []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond} {
		if got, ok := c.Due(uint64(n)); !ok || got != want {
			t.Errorf("Due(%d) = %v, %v; want %v", n, got, ok, want)
		}
	}
	if wait, stop := c.Pace(150*time.Millisecond, 2); stop || wait != 50*time.Millisecond {
		t.Errorf("Pace(150ms, 2) = %v, %v; want 50ms", wait, stop)
	}
	if wait, stop := c.Pace(250*time.Millisecond, 2); stop || wait != 0 {
		t.Errorf("Pace(250ms, 2) = %v, %v; want 0 (behind schedule)", wait, stop)
	}
	if got := c.Arrivals(1500 * time.Millisecond); got != 15 {
		t.Errorf("Arrivals(1.5s) = %v, want 15", got)
	}
	if got := c.RateAt(time.Hour); got != 10 {
		t.Errorf("RateAt = %v", got)
	}
	if _, stop := (Constant{}).Pace(0, 0); !stop {
		t.Error("a zero rate does not stop")
	}
	if got, _ := (Constant{Rate: 3000}).Due(3000); got != time.Second {
		t.Errorf("3000/s: arrival 3000 due at %v, want 1s", got)
	}
}

// ramp: 0 → 10/s in 10 s, 10/s for 10 s, 10/s → 0 in 5 s.
var ramp = Ramping{Start: 0, Stages: []Stage{
	{Target: 10, Duration: 10 * time.Second},
	{Target: 10, Duration: 10 * time.Second},
	{Target: 0, Duration: 5 * time.Second},
}}

func TestRampingIntegral(t *testing.T) {
	cases := []struct {
		at        time.Duration
		rate, sum float64
	}{
		{0, 0, 0},
		{5 * time.Second, 5, 12.5},
		{10 * time.Second, 10, 50},
		{15 * time.Second, 10, 100},
		{20 * time.Second, 10, 150},
		{22500 * time.Millisecond, 5, 150 + 18.75},
		{25 * time.Second, 0, 175},
		{time.Hour, 0, 175},
	}
	for _, c := range cases {
		if got := ramp.RateAt(c.at); math.Abs(got-c.rate) > 1e-9 {
			t.Errorf("RateAt(%v) = %v, want %v", c.at, got, c.rate)
		}
		if got := ramp.Arrivals(c.at); math.Abs(got-c.sum) > 1e-9 {
			t.Errorf("Arrivals(%v) = %v, want %v", c.at, got, c.sum)
		}
	}
	if ramp.Duration() != 25*time.Second {
		t.Errorf("Duration = %v", ramp.Duration())
	}
}

func TestRampingDueInvertsIntegral(t *testing.T) {
	var prev time.Duration = -1
	count := 0
	for n := uint64(0); ; n++ {
		at, ok := ramp.Due(n)
		if !ok {
			break
		}
		if at < prev {
			t.Fatalf("Due(%d) = %v before Due(%d) = %v", n, at, n-1, prev)
		}
		prev = at
		if got := ramp.Arrivals(at); math.Abs(got-float64(n)) > 1e-6 {
			t.Fatalf("Arrivals(Due(%d) = %v) = %v", n, at, got)
		}
		if at < ramp.Duration() {
			count++
		}
	}
	// The arrivals due in [0, 25 s) are the integral rounded up: 175.
	if count != 175 {
		t.Fatalf("%d arrivals due within the ramp, want 175", count)
	}
	// Known points: arrival 50 at the end of the first stage (t²/2 = 50),
	// arrival 2 at 2 s (t²/2 = 2), arrival 100 at 15 s.
	for n, want := range map[uint64]time.Duration{2: 2 * time.Second, 50: 10 * time.Second, 100: 15 * time.Second} {
		if got, _ := ramp.Due(n); (got - want).Abs() > time.Microsecond {
			t.Errorf("Due(%d) = %v, want %v", n, got, want)
		}
	}
	if _, ok := ramp.Due(176); ok {
		t.Error("an arrival beyond the ramp's integral is due")
	}
}

func TestRampingMatchesConstant(t *testing.T) {
	r := Ramping{Start: 40, Stages: []Stage{{Target: 40, Duration: 2 * time.Second}}}
	c := Constant{Rate: 40}
	for n := uint64(0); n < 80; n++ {
		a, _ := r.Due(n)
		b, _ := c.Due(n)
		if (a - b).Abs() > time.Microsecond {
			t.Fatalf("Due(%d): ramping %v, constant %v", n, a, b)
		}
	}
}

func TestRampingValidate(t *testing.T) {
	if err := ramp.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []Ramping{
		{},
		{Start: -1, Stages: []Stage{{Target: 1, Duration: time.Second}}},
		{Stages: []Stage{{Target: math.NaN(), Duration: time.Second}}},
		{Stages: []Stage{{Target: 1, Duration: 0}}},
	}
	for _, r := range bad {
		if r.Validate() == nil {
			t.Errorf("%v: no error", r)
		}
	}
}
