package threshold

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Lookup returns the value of an aggregation of a metric narrowed by tags, in
// the metric's base unit (see Expression), and false when there is no data
// for it: no samples, an unknown tag value, or a measurement that was not
// taken. tags is nil when the selector has none.
type Lookup func(metric string, tags map[string]string, agg Aggregation) (float64, bool)

// Status is the outcome of evaluating a threshold.
type Status int

const (
	// Passed means the observed value satisfied the expression.
	Passed Status = iota + 1
	// Failed means the observed value did not satisfy the expression.
	Failed
	// NoData means there was nothing to observe. It is not a pass: at the end
	// of a run it fails the run like Failed; while a run is in progress it
	// never aborts it.
	NoData
	// Inconclusive means the run could not tell: a relative threshold's
	// confidence interval straddles its limit. It neither passes nor fails.
	Inconclusive
	// NotApplicable means the threshold has nothing to judge in this run:
	// a ratio to the ceiling without a ceiling, to the baseline without
	// one, or a ratio in a per-phase evaluation. It neither passes nor
	// fails.
	NotApplicable
)

// String returns "passed", "failed", "no data", "inconclusive" or "not
// applicable".
func (s Status) String() string {
	switch s {
	case Passed:
		return "passed"
	case Failed:
		return "failed"
	case NoData:
		return "no data"
	case Inconclusive:
		return "inconclusive"
	case NotApplicable:
		return "not applicable"
	}
	return "unknown"
}

// Result is a threshold with its evaluation.
type Result struct {
	Threshold Threshold
	Status    Status
	// Observed is the looked-up value in the metric's base unit; NaN when the
	// status is NoData.
	Observed float64
}

// Ok reports whether the threshold passed. NoData is not ok.
func (r Result) Ok() bool { return r.Status == Passed }

// Aborts reports whether the result stops a run that has been going for
// elapsed: the threshold failed, aborts on failure, and its
// DelayAbortEval has passed. NoData never aborts.
func (r Result) Aborts(elapsed time.Duration) bool {
	return r.Status == Failed && r.Threshold.AbortOnFail && elapsed >= r.Threshold.DelayAbortEval
}

// ObservedText formats the observed value in the unit of the expression:
// a duration, a percent, a per-second rate or a count; "no data" when there
// was none.
func (r Result) ObservedText() string {
	if r.Status == NoData {
		return "no data"
	}
	return FormatValue(r.Threshold.Selector.Kind(), r.Threshold.Expression.Aggregation, r.Observed)
}

// String returns a one-line report, for example
// "latency{op:thought}: p(99)<5ms: observed 7.2ms: failed".
func (r Result) String() string {
	return fmt.Sprintf("%s: %s: observed %s: %s", r.Threshold.Selector, r.Threshold.Expression, r.ObservedText(), r.Status)
}

// Evaluate looks up the threshold's aggregation and compares it with the
// expression's value. A lookup that reports no data, or returns NaN, gives the
// status NoData.
//
// A Ratio threshold compares subjects of a run, not one phase's figures:
// Evaluate gives it NotApplicable (see JudgeInterval).
func Evaluate(t Threshold, lookup Lookup) Result {
	if t.Selector.Kind() == Ratio {
		return Result{Threshold: t, Status: NotApplicable, Observed: math.NaN()}
	}
	v, ok := lookup(t.Selector.Metric, t.Selector.Tags, t.Expression.Aggregation)
	if !ok || math.IsNaN(v) {
		return Result{Threshold: t, Status: NoData, Observed: math.NaN()}
	}
	st := Failed
	if t.Expression.Operator.Holds(v, t.Expression.Value) {
		st = Passed
	}
	return Result{Threshold: t, Status: st, Observed: v}
}

// EvaluateAll evaluates every threshold in order and reports whether all of
// them passed.
func EvaluateAll(ts []Threshold, lookup Lookup) (results []Result, ok bool) {
	ok = true
	results = make([]Result, len(ts))
	for i, t := range ts {
		results[i] = Evaluate(t, lookup)
		ok = ok && results[i].Ok()
	}
	return results, ok
}

// Abort evaluates the abort-on-fail thresholds of ts during a run that has
// been going for elapsed and returns the first result that stops the run.
// Thresholds without AbortOnFail are not looked up.
func Abort(ts []Threshold, lookup Lookup, elapsed time.Duration) (Result, bool) {
	for _, t := range ts {
		if !t.AbortOnFail || elapsed < t.DelayAbortEval {
			continue
		}
		if r := Evaluate(t, lookup); r.Aborts(elapsed) {
			return r, true
		}
	}
	return Result{}, false
}

// FormatValue formats v, a value of aggregation agg of a metric of kind k in
// its base unit, for people: durations like "1.25ms", rates of Rate metrics as
// percents ("0.05%"), rates of Counter metrics as "1234.5/s", counts as whole
// numbers when they are.
func FormatValue(k Kind, agg Aggregation, v float64) string {
	switch {
	case math.IsNaN(v):
		return "no data"
	case agg.Func == Count:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case k == Trend:
		return formatDuration(v)
	case k == Rate:
		return strconv.FormatFloat(v*100, 'g', 4, 64) + "%"
	case k == Counter:
		return strconv.FormatFloat(v, 'f', 1, 64) + "/s"
	case k == Ratio:
		return strconv.FormatFloat(v, 'f', 3, 64) + "×"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// formatDuration rounds a duration in nanoseconds to about four significant
// digits so reports stay readable.
func formatDuration(ns float64) string {
	d := time.Duration(math.Round(ns))
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= 10*time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d >= time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d >= time.Microsecond:
		return d.Round(time.Nanosecond).String()
	}
	return d.String()
}
