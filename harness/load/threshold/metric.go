package threshold

import (
	"slices"
	"strings"
)

// Kind is the type of a metric, which decides the aggregations it supports and
// the unit of its values. The names follow k6's metric types.
type Kind int

const (
	// Trend is a distribution of durations (latency, service time, schedule
	// lag). Aggregations: p(N), avg, min, max, med (in nanoseconds) and count
	// (number of samples). Expression values need a duration unit.
	Trend Kind = iota + 1
	// Rate is the fraction of events that were bad (errors among calls,
	// dropped among scheduled arrivals). Aggregations: rate (a fraction in
	// [0, 1], written as a fraction or a percent) and count.
	Rate
	// Counter counts events over the run. Aggregations: rate (events per
	// second) and count (events in total).
	Counter
	// Ratio is a subject's figure over a reference's (the no-op ceiling or
	// the baseline) in the same run, paired round by round. Aggregations:
	// p(N), avg, min, max, med (of the service time), cpu_per_call, rss and
	// throughput. Expression values are plain numbers (times the
	// reference), optionally followed by x or ×.
	Ratio
)

// String returns the k6 name of the kind.
func (k Kind) String() string {
	switch k {
	case Trend:
		return "trend"
	case Rate:
		return "rate"
	case Counter:
		return "counter"
	case Ratio:
		return "ratio"
	}
	return "unknown"
}

// Aggregations lists the aggregation functions a metric of kind k supports.
func (k Kind) Aggregations() []Func {
	switch k {
	case Trend:
		return []Func{Percentile, Avg, Min, Max, Med, Count}
	case Rate, Counter:
		return []Func{RateOf, Count}
	case Ratio:
		return ratioFuncs
	}
	return nil
}

// metrics are the metrics a load run reports, by selector name.
var metrics = map[string]Kind{
	"latency":    Trend,   // from the scheduled start (open loop) or the send (closed loop) to the answer
	"service":    Trend,   // from the send to the answer
	"lag":        Trend,   // how late a call was sent after its scheduled start (open loop)
	"errors":     Rate,    // failed calls among all calls, every error class
	"dropped":    Rate,    // arrivals that found no free virtual user among all arrivals
	"throughput": Counter, // completed calls
	RatioMetric:  Ratio,   // a subject's figure over the ceiling's or the baseline's, round by round
}

// MetricKind returns the kind of the named metric and whether the metric is
// known.
func MetricKind(name string) (Kind, bool) {
	k, ok := metrics[name]
	return k, ok
}

// Metrics returns the names of the known metrics, sorted.
func Metrics() []string {
	names := make([]string, 0, len(metrics))
	for n := range metrics {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func metricList() string { return strings.Join(Metrics(), ", ") }
