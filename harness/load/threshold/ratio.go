package threshold

import (
	"fmt"
	"math"
	"strconv"
)

// The metric of relative thresholds and its tags.
const (
	// RatioMetric compares a subject with a reference measured in the same
	// run, round by round: `ratio{op:thought,vs:ceiling}: p(99)<4` holds
	// when every subject's thought p99 is less than four times the no-op
	// ceiling's, judged on the confidence interval of the paired ratios.
	RatioMetric = "ratio"
	// TagVersus names the reference of a ratio: VersusCeiling or
	// VersusBaseline. It is required.
	TagVersus = "vs"
	// TagSubject narrows a ratio to one subject (default: every subject
	// that is not the reference).
	TagSubject = "subject"
	// TagOp narrows a figure to one operation (latency figures only).
	TagOp = "op"
)

// The references a ratio compares with.
const (
	// VersusCeiling is the no-op MCP server measured beside the subjects.
	VersusCeiling = "ceiling"
	// VersusBaseline is the subject named the baseline (tbbench load
	// --baseline).
	VersusBaseline = "baseline"
)

// The figures a ratio threshold compares besides the latency aggregations
// (p(N), avg, min, max, med of the service time: from the send to the
// answer, without how late the generator sent the call, which is the
// machine's doing).
const (
	// CPUPerCall is the server process's CPU time (user + system) over a
	// phase divided by the calls it answered.
	CPUPerCall Func = "cpu_per_call"
	// RSS is the server process's largest resident set size in a phase.
	RSS Func = "rss"
	// ThroughputOf is completed calls per second.
	ThroughputOf Func = "throughput"
)

// ratioFuncs are the aggregations of a Ratio metric.
var ratioFuncs = []Func{Percentile, Avg, Min, Max, Med, CPUPerCall, RSS, ThroughputOf}

// checkRatioTags reports what is wrong with the tags of a ratio selector.
func checkRatioTags(tags map[string]string) error {
	for k := range tags {
		if k != TagVersus && k != TagSubject && k != TagOp {
			return fmt.Errorf("unknown tag %q of ratio (want vs, and optionally op and subject)", k)
		}
	}
	switch tags[TagVersus] {
	case VersusCeiling, VersusBaseline:
		return nil
	case "":
		return fmt.Errorf("ratio needs the tag vs:ceiling or vs:baseline, as in ratio{vs:ceiling}")
	}
	return fmt.Errorf("unknown reference vs:%s of ratio (want ceiling or baseline)", tags[TagVersus])
}

// Interval is an estimate with its confidence interval, as a relative
// threshold is judged on it.
type Interval struct {
	Estimate, Low, High float64
	// N is the number of paired rounds behind it.
	N int
}

// JudgeInterval judges an expression on an interval rather than a value:
// it passes when the whole interval satisfies the expression, fails when
// no value of the interval does, and is Inconclusive when the interval
// straddles the limit (the run cannot tell). An interval without rounds,
// or with NaN bounds, is NoData. == and != are judged on the estimate.
func JudgeInterval(e Expression, iv Interval) Status {
	if iv.N == 0 || math.IsNaN(iv.Low) || math.IsNaN(iv.High) || math.IsNaN(iv.Estimate) {
		return NoData
	}
	switch e.Operator {
	case Equal, NotEqual:
		if e.Operator.Holds(iv.Estimate, e.Value) {
			return Passed
		}
		return Failed
	}
	lowOK, highOK := e.Operator.Holds(iv.Low, e.Value), e.Operator.Holds(iv.High, e.Value)
	switch {
	case lowOK && highOK:
		return Passed
	case !lowOK && !highOK:
		return Failed
	}
	return Inconclusive
}

// FormatInterval formats a ratio's interval for people: "1.23× [1.10, 1.37]".
func FormatInterval(iv Interval) string {
	if iv.N == 0 || math.IsNaN(iv.Estimate) {
		return "no data"
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	if math.IsInf(iv.Low, 0) || math.IsInf(iv.High, 0) || math.IsNaN(iv.Low) || math.IsNaN(iv.High) {
		return fmt.Sprintf("%s× (no interval: %d round(s))", f(iv.Estimate), iv.N)
	}
	return fmt.Sprintf("%s× [%s, %s] over %d rounds", f(iv.Estimate), f(iv.Low), f(iv.High), iv.N)
}
