package pace

import (
	"math"
	"time"
)

// A Pacer decides when arrivals are due. Arrival n (counting from 0) is due
// at the earliest time t, since the start, at which the expected number of
// arrivals — the integral of the rate from 0 to t — reaches n; so the first
// arrival is due at once and the number of arrivals due in [0, t) is the
// integral rounded up.
type Pacer interface {
	// Pace returns how long to wait, elapsed after the start and with
	// arrivals arrivals made so far, before the next arrival; zero when it is
	// already due. stop reports that the pacer makes no further arrival.
	Pace(elapsed time.Duration, arrivals uint64) (wait time.Duration, stop bool)
	// Due returns when arrival n is due, as an offset from the start; ok is
	// false when the pacer never makes arrival n.
	Due(n uint64) (at time.Duration, ok bool)
	// RateAt returns the arrival rate, per second, at elapsed.
	RateAt(elapsed time.Duration) float64
}

// paceFromDue implements Pacer.Pace with Pacer.Due.
func paceFromDue(p Pacer, elapsed time.Duration, arrivals uint64) (time.Duration, bool) {
	at, ok := p.Due(arrivals)
	if !ok {
		return 0, true
	}
	if at <= elapsed {
		return 0, false
	}
	return at - elapsed, false
}

// seconds converts a number of seconds to a Duration, saturating.
func seconds(s float64) time.Duration {
	ns := math.Round(s * float64(time.Second))
	if ns >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ns)
}
