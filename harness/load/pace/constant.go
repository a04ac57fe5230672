package pace

import (
	"fmt"
	"time"
)

// Constant is a Pacer with a fixed rate: arrival n is due at n/Rate seconds.
type Constant struct {
	// Rate is the number of arrivals per second; zero or less makes none.
	Rate float64
}

// Pace implements Pacer.
func (c Constant) Pace(elapsed time.Duration, arrivals uint64) (time.Duration, bool) {
	return paceFromDue(c, elapsed, arrivals)
}

// Due implements Pacer.
func (c Constant) Due(n uint64) (time.Duration, bool) {
	if c.Rate <= 0 {
		return 0, false
	}
	return seconds(float64(n) / c.Rate), true
}

// RateAt implements Pacer.
func (c Constant) RateAt(time.Duration) float64 {
	if c.Rate <= 0 {
		return 0
	}
	return c.Rate
}

// Arrivals returns the expected number of arrivals in the first elapsed: the
// integral of the rate.
func (c Constant) Arrivals(elapsed time.Duration) float64 {
	if c.Rate <= 0 || elapsed <= 0 {
		return 0
	}
	return c.Rate * elapsed.Seconds()
}

// String returns the rate, as in "constant 3000/s".
func (c Constant) String() string { return fmt.Sprintf("constant %g/s", c.Rate) }
