package metrics

import (
	"maps"
	"slices"
	"sort"
	"time"
)

// MaxSamples is the number of error messages kept per operation and class.
const MaxSamples = 5

// Snapshot is the state of a Recorder at one time, or the merge of several.
// It is a plain value: it serializes to JSON and back, and Merge combines
// snapshots.
type Snapshot struct {
	// Windows are the measured intervals: one per recorder, several after
	// Merge. Throughput is computed over their union.
	Windows []Window `json:"windows"`
	// Ops holds the figures of each operation label.
	Ops map[string]*Op `json:"ops"`
	// Iterations counts the iterations started and Dropped the arrivals
	// dropped because every user was busy.
	Iterations uint64 `json:"iterations"`
	Dropped    uint64 `json:"dropped"`
	// Lag is the schedule lag of the iterations (actual − scheduled start).
	Lag *Histogram `json:"lag"`
	// Seconds is the time series: Seconds[i] covers second i after the
	// window's start.
	Seconds []*Second `json:"seconds"`
}

// Window is a measured interval.
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// Op holds the figures of one operation.
type Op struct {
	// Successes counts the calls without error.
	Successes uint64 `json:"successes"`
	// Errors holds the failed calls by class.
	Errors map[string]*ErrorClass `json:"errors,omitempty"`
	// Latency is measured from the scheduled start, Service from the actual
	// send; both hold every call, failed or not.
	Latency *Histogram `json:"latency"`
	Service *Histogram `json:"service"`
}

// ErrorClass counts the errors of one class and keeps the first messages.
type ErrorClass struct {
	Count   uint64   `json:"count"`
	Samples []string `json:"samples,omitempty"`
}

// Second holds the figures of one second of the run.
type Second struct {
	Calls      uint64 `json:"calls"`
	Errors     uint64 `json:"errors"`
	Dropped    uint64 `json:"dropped"`
	Iterations uint64 `json:"iterations"`
	// Latency is the distribution of the latencies of the calls that ended
	// in that second.
	Latency *Histogram `json:"latency"`
}

// addErrors adds e's count and samples to the operation's class.
func (o *Op) addErrors(class string, e *ErrorClass) {
	de := o.Errors[class]
	if de == nil {
		de = &ErrorClass{}
		o.Errors[class] = de
	}
	de.Count += e.Count
	for _, m := range e.Samples {
		de.Samples = addSample(de.Samples, m)
	}
}

// secondAt returns second i of the series, growing it as needed.
func (s *Snapshot) secondAt(i int) *Second {
	for len(s.Seconds) <= i {
		s.Seconds = append(s.Seconds, newSecond())
	}
	return s.Seconds[i]
}

// Calls returns the number of calls of the operation.
func (o *Op) Calls() uint64 { return o.Successes + o.ErrorCount() }

// ErrorCount returns the number of failed calls of the operation.
func (o *Op) ErrorCount() uint64 {
	var n uint64
	for _, e := range o.Errors {
		n += e.Count
	}
	return n
}

func newOp() *Op {
	return &Op{Errors: map[string]*ErrorClass{}, Latency: NewHistogram(), Service: NewHistogram()}
}

func newSecond() *Second { return &Second{Latency: NewHistogram()} }

// addSample appends msg to samples unless MaxSamples are already kept.
func addSample(samples []string, msg string) []string {
	if len(samples) >= MaxSamples {
		return samples
	}
	return append(samples, msg)
}

// op returns the figures of the operation name, adding them empty when s
// has none yet.
func (s *Snapshot) op(name string) *Op {
	o := s.Ops[name]
	if o == nil {
		o = newOp()
		s.Ops[name] = o
	}
	return o
}

// Merge returns a new snapshot holding both a and b (either may be nil):
// counts add, histograms merge, error samples are kept up to MaxSamples,
// windows accumulate, and the time series add second by second, each
// aligned on its own window's start (segments of one run start together).
// a and b are not modified.
func Merge(a, b *Snapshot) *Snapshot {
	out := &Snapshot{Ops: map[string]*Op{}, Lag: NewHistogram()}
	for _, s := range []*Snapshot{a, b} {
		if s == nil {
			continue
		}
		out.Windows = append(out.Windows, s.Windows...)
		out.Iterations += s.Iterations
		out.Dropped += s.Dropped
		out.Lag.Merge(s.Lag)
		for name, op := range s.Ops {
			dst := out.op(name)
			dst.Successes += op.Successes
			dst.Latency.Merge(op.Latency)
			dst.Service.Merge(op.Service)
			for _, class := range slices.Sorted(maps.Keys(op.Errors)) {
				dst.addErrors(class, op.Errors[class])
			}
		}
		for i, sec := range s.Seconds {
			if sec == nil {
				continue
			}
			d := out.secondAt(i)
			d.Calls += sec.Calls
			d.Errors += sec.Errors
			d.Dropped += sec.Dropped
			d.Iterations += sec.Iterations
			d.Latency.Merge(sec.Latency)
		}
	}
	return out
}

// Duration returns the length of the union of the snapshot's windows: the
// wall time of parallel segments, the sum of sequential rounds.
func (s *Snapshot) Duration() time.Duration {
	var ws []Window
	for _, w := range s.Windows {
		if w.End.After(w.Start) {
			ws = append(ws, w)
		}
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].Start.Before(ws[j].Start) })
	var total time.Duration
	for i := 0; i < len(ws); {
		cur := ws[i]
		for i++; i < len(ws) && !ws[i].Start.After(cur.End); i++ {
			if ws[i].End.After(cur.End) {
				cur.End = ws[i].End
			}
		}
		total += cur.End.Sub(cur.Start)
	}
	return total
}

// OpNames returns the operation labels, sorted.
func (s *Snapshot) OpNames() []string { return slices.Sorted(maps.Keys(s.Ops)) }

// Classes returns every error class seen in any operation, sorted.
func (s *Snapshot) Classes() []string {
	seen := map[string]bool{}
	for _, op := range s.Ops {
		for c := range op.Errors {
			seen[c] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}
