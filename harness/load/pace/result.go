package pace

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Result is what an executor did.
type Result struct {
	// Start is when the executor started scheduling and End when its last
	// iteration returned.
	Start, End time.Time
	// Scheduled is the time scheduling stopped: Start plus the duration, or
	// earlier when the pacer, the iterations or an abort ended it.
	Scheduled time.Time
	// Started counts the iterations handed to a user.
	Started uint64
	// Completed counts the iterations that returned before their context was
	// cancelled, Interrupted those that returned after (graceful stop
	// expired or the run was aborted). Started = Completed + Interrupted.
	Completed, Interrupted uint64
	// Dropped counts the arrivals that were due while every user was busy
	// (open executor only). Every due arrival is either started or dropped.
	Dropped uint64
	// Lag is the schedule lag of the started iterations, actual start minus
	// scheduled time, in microseconds (open executor only; nil otherwise).
	Lag *hdrhistogram.Histogram
	// RealTime reports that the open executor's scheduler waited for its
	// arrivals on a thread at a real-time priority (Open.RealTime), and
	// RealTimeErr why it did not or stopped, when it was asked to, or a
	// failure to give the priority back.
	RealTime    bool
	RealTimeErr error
}

// Arrivals returns the number of arrivals due: Started + Dropped.
func (r Result) Arrivals() uint64 { return r.Started + r.Dropped }

// DroppedRatio returns Dropped / Arrivals, or 0 without arrivals.
func (r Result) DroppedRatio() float64 {
	if r.Arrivals() == 0 {
		return 0
	}
	return float64(r.Dropped) / float64(r.Arrivals())
}

// Rate returns the iterations started per second of scheduling
// (Started / (Scheduled − Start)), or 0 when no time passed.
func (r Result) Rate() float64 {
	d := r.Scheduled.Sub(r.Start).Seconds()
	if d <= 0 {
		return 0
	}
	return float64(r.Started) / d
}

// LagQuantile returns the schedule lag at percentile p (0 to 100), or 0
// without lag figures.
func (r Result) LagQuantile(p float64) time.Duration {
	if r.Lag == nil {
		return 0
	}
	return time.Duration(r.Lag.ValueAtPercentile(p)) * time.Microsecond
}

// Lag histogram geometry: 1 µs to 60 s, 3 significant digits.
const (
	lagLowest  = 1
	lagHighest = 60_000_000
	lagDigits  = 3
)

func newLagHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(lagLowest, lagHighest, lagDigits)
}

// recordLag records d, in microseconds, clamped to the histogram's range.
func recordLag(h *hdrhistogram.Histogram, d time.Duration) {
	us := d.Microseconds()
	if us < 0 {
		us = 0
	}
	if us > lagHighest {
		us = lagHighest
	}
	_ = h.RecordValue(us)
}
