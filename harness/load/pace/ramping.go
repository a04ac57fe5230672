package pace

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Stage is one stage of a Ramping pacer: the rate moves linearly to Target
// over Duration.
type Stage struct {
	// Target is the rate, in arrivals per second, at the end of the stage.
	Target float64
	// Duration is the stage's length.
	Duration time.Duration
}

// Ramping is a Pacer whose rate moves linearly from stage to stage, with the
// semantics of k6's ramping-arrival-rate executor: it starts at Start, each
// stage ramps linearly from the previous rate to its Target, and the pacer
// stops at the end of the last stage. The arrivals due by time t are the
// integral of the rate from 0 to t.
type Ramping struct {
	// Start is the rate, in arrivals per second, at time zero.
	Start float64
	// Stages follow each other from time zero.
	Stages []Stage
}

// Validate reports negative rates and non-positive stage durations.
func (r Ramping) Validate() error {
	if r.Start < 0 || math.IsNaN(r.Start) || math.IsInf(r.Start, 0) {
		return fmt.Errorf("pace: ramping start rate %g is not a finite rate >= 0", r.Start)
	}
	if len(r.Stages) == 0 {
		return errors.New("pace: ramping pacer has no stage")
	}
	for i, s := range r.Stages {
		if s.Target < 0 || math.IsNaN(s.Target) || math.IsInf(s.Target, 0) {
			return fmt.Errorf("pace: stage %d: target %g is not a finite rate >= 0", i+1, s.Target)
		}
		if s.Duration <= 0 {
			return fmt.Errorf("pace: stage %d: duration %v is not positive", i+1, s.Duration)
		}
	}
	return nil
}

// Duration returns the sum of the stages' durations.
func (r Ramping) Duration() time.Duration {
	var d time.Duration
	for _, s := range r.Stages {
		d += s.Duration
	}
	return d
}

// Pace implements Pacer.
func (r Ramping) Pace(elapsed time.Duration, arrivals uint64) (time.Duration, bool) {
	return paceFromDue(r, elapsed, arrivals)
}

// RateAt implements Pacer; it is zero after the last stage.
func (r Ramping) RateAt(elapsed time.Duration) float64 {
	from := r.Start
	t := elapsed.Seconds()
	if t < 0 {
		return r.Start
	}
	for _, s := range r.Stages {
		d := s.Duration.Seconds()
		if t < d {
			return from + (s.Target-from)*t/d
		}
		t -= d
		from = s.Target
	}
	return 0
}

// Arrivals returns the expected number of arrivals in the first elapsed (at
// most the whole ramp): the integral of the rate.
func (r Ramping) Arrivals(elapsed time.Duration) float64 {
	from := r.Start
	t := elapsed.Seconds()
	total := 0.0
	for _, s := range r.Stages {
		if t <= 0 {
			break
		}
		d := s.Duration.Seconds()
		tau := math.Min(t, d)
		total += from*tau + (s.Target-from)*tau*tau/(2*d)
		t -= d
		from = s.Target
	}
	return total
}

// Due implements Pacer: it solves integral(0, t) = n for t, stage by stage.
func (r Ramping) Due(n uint64) (time.Duration, bool) {
	from := r.Start
	need := float64(n)
	offset := 0.0
	for _, s := range r.Stages {
		d := s.Duration.Seconds()
		area := (from + s.Target) / 2 * d
		if need <= 0 {
			return seconds(offset), true
		}
		if need <= area && area > 0 {
			// from*tau + a*tau^2 = need, with a = (target-from)/(2d); the
			// stable root 2*need / (from + sqrt(from^2 + 4*a*need)).
			a := (s.Target - from) / (2 * d)
			disc := from*from + 4*a*need
			if disc < 0 {
				disc = 0
			}
			den := from + math.Sqrt(disc)
			tau := d
			if den > 0 {
				tau = math.Min(2*need/den, d)
			}
			return seconds(offset + tau), true
		}
		need -= area
		offset += d
		from = s.Target
	}
	return 0, false
}

// String describes the ramp, as in "ramping 0/s → 100/s in 10s → 100/s in 30s".
func (r Ramping) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ramping %g/s", r.Start)
	for _, s := range r.Stages {
		fmt.Fprintf(&b, " → %g/s in %v", s.Target, s.Duration)
	}
	return b.String()
}
