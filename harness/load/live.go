package load

import (
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// Live follows a run as it goes, for a progress display: calls, errors and
// dropped arrivals of the current phase, and the p99 latency of its last
// second. It is safe for concurrent use; a nil *Live ignores everything.
type Live struct {
	calls, errors, dropped atomic.Uint64

	mu      sync.Mutex
	phase   string
	started time.Time
	second  *hdrhistogram.Histogram
	last    *hdrhistogram.Histogram
	at      time.Time
}

// NewLive returns an empty Live.
func NewLive() *Live {
	return &Live{second: hdrhistogram.New(1, 60_000_000, 2), last: hdrhistogram.New(1, 60_000_000, 2)}
}

func (l *Live) startPhase(name string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.phase, l.started, l.at = name, time.Now(), time.Now()
	l.calls.Store(0)
	l.errors.Store(0)
	l.dropped.Store(0)
	l.second.Reset()
	l.last.Reset()
}

func (l *Live) drop(time.Time) {
	if l != nil {
		l.dropped.Add(1)
	}
}

func (l *Live) add(s sample) {
	if l == nil {
		return
	}
	l.calls.Add(1)
	if s.Class != outcome.OK {
		l.errors.Add(1)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if time.Since(l.at) >= time.Second {
		l.last, l.second = l.second, l.last
		l.second.Reset()
		l.at = time.Now()
	}
	_ = l.second.RecordValue(s.Done.Sub(s.Scheduled).Microseconds())
}

// Status is a moment of a run.
type Status struct {
	Phase   string
	Elapsed time.Duration
	Calls   uint64
	Errors  uint64
	Dropped uint64
	// Rate is calls per second since the phase started.
	Rate float64
	// P99 is the p99 latency of the last whole second.
	P99 time.Duration
}

// Status returns the current moment.
func (l *Live) Status() Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := Status{Phase: l.phase, Elapsed: time.Since(l.started), Calls: l.calls.Load(), Errors: l.errors.Load(), Dropped: l.dropped.Load()}
	if secs := s.Elapsed.Seconds(); secs > 0 {
		s.Rate = float64(s.Calls) / secs
	}
	s.P99 = time.Duration(l.last.ValueAtQuantile(99)) * time.Microsecond
	return s
}
