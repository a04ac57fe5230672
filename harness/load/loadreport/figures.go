package loadreport

import (
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
	"github.com/thoughtbox-bench/tbbench/harness/load/threshold"
)

// The figures the report reads off a snapshot, in milliseconds and calls
// per second.

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func throughput(s *metrics.Snapshot) float64 {
	if s == nil {
		return 0
	}
	return s.Total().Throughput
}

// P99Ms returns a summary's p99 latency in milliseconds.
func P99Ms(s metrics.Summary) float64 { return ms(s.Latency.P99) }

// OpP99Ms returns the p99 latency of one operation in milliseconds (0
// without a snapshot).
func OpP99Ms(s *metrics.Snapshot, op string) float64 {
	if s == nil {
		return 0
	}
	return P99Ms(s.Op(op))
}

// errorClasses returns every error class of the snapshot with its count and
// first message, all operations together.
func errorClasses(s *metrics.Snapshot) map[string]metrics.ClassCount {
	out := map[string]metrics.ClassCount{}
	if s == nil {
		return out
	}
	for _, c := range s.Total().ErrorClasses {
		out[c.Class] = c
	}
	return out
}

// Lookup reads threshold metrics off a snapshot: latency, service and lag in
// nanoseconds, errors and dropped as fractions, throughput in calls per
// second (rate) or calls (count). The tag op narrows latency, service,
// errors and throughput to one operation.
func Lookup(s *metrics.Snapshot) threshold.Lookup {
	return func(metric string, tags map[string]string, agg threshold.Aggregation) (float64, bool) {
		if s == nil {
			return 0, false
		}
		sum := s.Total()
		if op, ok := tags["op"]; ok {
			if s.Ops[op] == nil {
				return 0, false
			}
			sum = s.Op(op)
		}
		switch metric {
		case "latency", "service", "lag":
			h := metrics.NewHistogram()
			switch {
			case metric == "lag":
				h = s.Lag
			case tags["op"] != "":
				h = pick(s.Ops[tags["op"]], metric)
			default:
				for _, name := range s.OpNames() {
					h.Merge(pick(s.Ops[name], metric))
				}
			}
			if h == nil || h.Count() == 0 {
				return 0, false
			}
			return trend(h, agg), true
		case "errors":
			if sum.Calls == 0 {
				return 0, false
			}
			if agg.Func == threshold.Count {
				return float64(sum.Errors), true
			}
			return sum.ErrorRate, true
		case "dropped":
			if s.Iterations+s.Dropped == 0 {
				return 0, false
			}
			if agg.Func == threshold.Count {
				return float64(s.Dropped), true
			}
			return s.DroppedRatio(), true
		case "throughput":
			if agg.Func == threshold.Count {
				return float64(sum.Calls), true
			}
			if s.Duration() <= 0 {
				return 0, false
			}
			return sum.Throughput, true
		}
		return 0, false
	}
}

func pick(op *metrics.Op, metric string) *metrics.Histogram {
	if metric == "service" {
		return op.Service
	}
	return op.Latency
}

// trend aggregates a histogram, in nanoseconds.
func trend(h *metrics.Histogram, agg threshold.Aggregation) float64 {
	var d time.Duration
	switch agg.Func {
	case threshold.Percentile:
		d = h.Quantile(agg.Percentile)
	case threshold.Med:
		d = h.Quantile(50)
	case threshold.Avg:
		d = h.Mean()
	case threshold.Min:
		d = h.Min()
	case threshold.Max:
		d = h.Max()
	case threshold.Count:
		return float64(h.Count())
	}
	return float64(d)
}
