package metrics

import (
	"sort"
	"time"
)

// Percentiles summarizes a Histogram.
type Percentiles struct {
	Count int64         `json:"count"`
	P50   time.Duration `json:"p50"`
	P90   time.Duration `json:"p90"`
	P99   time.Duration `json:"p99"`
	P999  time.Duration `json:"p999"`
	Max   time.Duration `json:"max"`
	Mean  time.Duration `json:"mean"`
}

// Summarize returns h's count, p50, p90, p99, p99.9, max and mean.
func Summarize(h *Histogram) Percentiles {
	if h == nil {
		return Percentiles{}
	}
	return Percentiles{
		Count: h.Count(),
		P50:   h.Quantile(50),
		P90:   h.Quantile(90),
		P99:   h.Quantile(99),
		P999:  h.Quantile(99.9),
		Max:   h.Max(),
		Mean:  h.Mean(),
	}
}

// ClassCount is the number of errors of one class.
type ClassCount struct {
	Class string `json:"class"`
	Count uint64 `json:"count"`
	// Samples are the first messages of the class.
	Samples []string `json:"samples,omitempty"`
}

// Summary holds the figures of one operation, or of all of them.
type Summary struct {
	// Calls = Successes + Errors.
	Calls     uint64 `json:"calls"`
	Successes uint64 `json:"successes"`
	Errors    uint64 `json:"errors"`
	// ErrorClasses lists every class seen, most frequent first.
	ErrorClasses []ClassCount `json:"error_classes"`
	// Latency is measured from the scheduled start, Service from the send.
	Latency Percentiles `json:"latency"`
	Service Percentiles `json:"service"`
	// Throughput is calls per second over the measured duration.
	Throughput float64 `json:"throughput"`
	// ErrorRate is Errors / Calls (0 without calls).
	ErrorRate float64 `json:"error_rate"`
}

// Op returns the summary of the operation name (zero figures when it has no
// call).
func (s *Snapshot) Op(name string) Summary {
	op := s.Ops[name]
	if op == nil {
		return Summary{ErrorClasses: []ClassCount{}}
	}
	return s.summarize([]*Op{op})
}

// Total returns the summary of all operations together.
func (s *Snapshot) Total() Summary {
	ops := make([]*Op, 0, len(s.Ops))
	for _, name := range s.OpNames() {
		ops = append(ops, s.Ops[name])
	}
	return s.summarize(ops)
}

func (s *Snapshot) summarize(ops []*Op) Summary {
	lat, svc := NewHistogram(), NewHistogram()
	classes := map[string]*ClassCount{}
	var sum Summary
	for _, op := range ops {
		sum.Successes += op.Successes
		lat.Merge(op.Latency)
		svc.Merge(op.Service)
		for class, e := range op.Errors {
			sum.Errors += e.Count
			c := classes[class]
			if c == nil {
				c = &ClassCount{Class: class}
				classes[class] = c
			}
			c.Count += e.Count
			for _, m := range e.Samples {
				c.Samples = addSample(c.Samples, m)
			}
		}
	}
	sum.Calls = sum.Successes + sum.Errors
	sum.ErrorClasses = make([]ClassCount, 0, len(classes))
	for _, c := range classes {
		sum.ErrorClasses = append(sum.ErrorClasses, *c)
	}
	sort.Slice(sum.ErrorClasses, func(i, j int) bool {
		a, b := sum.ErrorClasses[i], sum.ErrorClasses[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Class < b.Class
	})
	sum.Latency = Summarize(lat)
	sum.Service = Summarize(svc)
	if d := s.Duration().Seconds(); d > 0 {
		sum.Throughput = float64(sum.Calls) / d
	}
	if sum.Calls > 0 {
		sum.ErrorRate = float64(sum.Errors) / float64(sum.Calls)
	}
	return sum
}

// DroppedRatio returns Dropped / (Iterations + Dropped), the share of
// arrivals that found no idle user (0 without arrivals).
func (s *Snapshot) DroppedRatio() float64 {
	if n := s.Iterations + s.Dropped; n > 0 {
		return float64(s.Dropped) / float64(n)
	}
	return 0
}

// LagPercentiles summarizes the schedule lag.
func (s *Snapshot) LagPercentiles() Percentiles { return Summarize(s.Lag) }

// Point is one second of the time series.
type Point struct {
	// Second is the second since the start of the window.
	Second     int           `json:"second"`
	Calls      uint64        `json:"calls"`
	Errors     uint64        `json:"errors"`
	Dropped    uint64        `json:"dropped"`
	Iterations uint64        `json:"iterations"`
	P99        time.Duration `json:"p99"`
}

// Series returns the per-second time series: calls (the rate, since each
// point is one second), errors, dropped arrivals, iterations and p99 latency.
func (s *Snapshot) Series() []Point {
	out := make([]Point, len(s.Seconds))
	for i, sec := range s.Seconds {
		out[i].Second = i
		if sec == nil {
			continue
		}
		out[i].Calls, out[i].Errors = sec.Calls, sec.Errors
		out[i].Dropped, out[i].Iterations = sec.Dropped, sec.Iterations
		if sec.Latency != nil {
			out[i].P99 = sec.Latency.Quantile(99)
		}
	}
	return out
}
