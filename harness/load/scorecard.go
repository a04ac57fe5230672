package load

import (
	"fmt"
	"math"

	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// Targets of the performance axis: a storage mode's throughput as a share
// of the no-op ceiling measured in the same run, and the thought's p99.
var (
	// CeilingShare is the share of the ceiling's throughput a target should
	// reach, by label; other labels use DefaultCeilingShare.
	CeilingShare = map[string]float64{"memory": 0.80, "fs": 0.60}
	// DefaultCeilingShare applies to targets without their own share.
	DefaultCeilingShare = 0.60
	// ThoughtP99SLOMs is the thought's p99 latency objective.
	ThoughtP99SLOMs = 5.0
	// MaxRoundSpread is the coefficient of variation of throughput across
	// rounds at which the stability axis reaches 0.
	MaxRoundSpread = 0.25
)

// Gate names the load adds to a scorecard.
const (
	GateNoLoss     = "no acknowledged thought lost"
	GateThresholds = "load thresholds met"
)

// Scorecard turns the report into a scorecard with the performance,
// stability and (when a Watcher ran) observability axes and the load gates (scored as written in
// scorecards/README.md). The target is the first measured one that is not
// the ceiling.
func (r *Report) Scorecard(h scorecards.Harness) scorecards.Scorecard {
	c := scorecards.Scorecard{RunID: r.RunID, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, Harness: h, Machine: r.Machine}
	for i := len(r.Targets) - 1; i >= 0; i-- {
		// The first target that is not the ceiling, else the ceiling.
		if t := r.Targets[i]; t.Label != CeilingLabel || c.Target.Kind == "" {
			c.Target = scorecards.Target{Name: t.Label, Kind: t.Kind, Address: t.Address, Transport: t.Transport, Storage: t.Storage}
		}
	}
	if a, ok := r.performanceAxis(); ok {
		c.Axes = append(c.Axes, a)
	}
	if a, ok := r.stabilityAxis(); ok {
		c.Axes = append(c.Axes, a)
	}
	if a, ok := r.observabilityAxis(); ok {
		c.Axes = append(c.Axes, a)
	}
	lost := r.Lost()
	detail := fmt.Sprintf("%d acknowledged thoughts not read back", lost)
	if n := r.Unverifiable(); n > 0 {
		detail += fmt.Sprintf("; %d could not be checked (see load.md)", n)
	}
	c.Gates = append(c.Gates,
		scorecards.Gate{Name: GateNoLoss, Passed: lost == 0, Detail: detail},
		scorecards.Gate{Name: GateThresholds, Passed: !r.ThresholdsFailed(), Detail: fmt.Sprintf("%d problems", len(r.Problems))})
	c.Finish()
	return c
}

// performanceAxis is the geometric mean, over its items, of
// clamp(observed/target, 0, 1) for throughput shares of the ceiling and of
// clamp(target/observed, 0, 1) for the thought's p99, plus the stress
// tier's maximum sustainable rate against the regression rate.
func (r *Report) performanceAxis() (scorecards.Axis, bool) {
	var checks []scorecards.Check
	var items []float64
	for _, cmp := range r.Comparisons {
		if cmp.B != CeilingLabel || cmp.Metric != "throughput" || cmp.Ratio.N == 0 {
			continue
		}
		want := DefaultCeilingShare
		if s, ok := CeilingShare[cmp.A]; ok {
			want = s
		}
		items = append(items, clamp01(cmp.Ratio.Median/want))
		checks = append(checks, scorecards.Check{Name: fmt.Sprintf("%s throughput ≥ %.0f%% of the ceiling", cmp.A, want*100),
			Passed: cmp.Ratio.Median >= want, Detail: fmt.Sprintf("%.1f%% [%.1f%%, %.1f%%]", cmp.Ratio.Median*100, cmp.Ratio.Low*100, cmp.Ratio.High*100)})
	}
	for _, s := range r.Summaries {
		if s.Label == CeilingLabel || s.ThoughtP99Ms.N == 0 || s.ThoughtP99Ms.Median == 0 {
			continue
		}
		items = append(items, clamp01(ThoughtP99SLOMs/s.ThoughtP99Ms.Median))
		checks = append(checks, scorecards.Check{Name: fmt.Sprintf("%s thought p99 < %.0f ms", s.Label, ThoughtP99SLOMs),
			Passed: s.ThoughtP99Ms.Median < ThoughtP99SLOMs, Detail: fmt.Sprintf("%.3f ms", s.ThoughtP99Ms.Median)})
	}
	for _, l := range r.LongSessions {
		if l.Ratio > 0 {
			items = append(items, clamp01(1.2/l.Ratio))
			checks = append(checks, scorecards.Check{Name: l.Label + " long session: last thoughts cost ≤ 1.2× the first",
				Passed: l.Ratio <= 1.2, Detail: fmt.Sprintf("%.2f×", l.Ratio)})
		}
	}
	for _, s := range r.Stress {
		checks = append(checks, scorecards.Check{Name: s.Label + " maximum sustainable rate found", Passed: s.MaxSustainable > 0,
			Detail: fmt.Sprintf("%.0f calls/s", s.MaxSustainable)})
	}
	if len(items) == 0 {
		return scorecards.Axis{}, false
	}
	score := geomean(items)
	return scorecards.Axis{Name: scorecards.AxisPerformance, Score: &score, Weight: scorecards.DefaultWeight(scorecards.AxisPerformance),
		Checks: checks, Summary: fmt.Sprintf("geometric mean of %d items (throughput share of the ceiling, thought p99, long session)", len(items))}, true
}

// stabilityAxis scores how repeatable the rounds were: per target
// 1 − CV(throughput)/MaxRoundSpread, floored at 0, averaged; with a check
// that no call ended in a transport error.
func (r *Report) stabilityAxis() (scorecards.Axis, bool) {
	var checks []scorecards.Check
	var sum float64
	n := 0
	for _, label := range r.labels() {
		var tput []float64
		var transport uint64
		for _, p := range r.roundPhases(label) {
			tput = append(tput, throughput(p.Metrics))
			transport += errorClasses(p.Metrics)[ClassTransport].Count
		}
		if len(tput) < 2 {
			continue
		}
		cv := coefficientOfVariation(tput)
		sum += clamp01(1 - cv/MaxRoundSpread)
		n++
		checks = append(checks,
			scorecards.Check{Name: fmt.Sprintf("%s throughput spread over %d rounds < %.0f%%", label, len(tput), MaxRoundSpread*100),
				Passed: cv < MaxRoundSpread, Detail: fmt.Sprintf("coefficient of variation %.1f%%", cv*100)},
			scorecards.Check{Name: label + " no transport errors", Passed: transport == 0, Detail: fmt.Sprintf("%d", transport)})
	}
	if n == 0 {
		return scorecards.Axis{}, false
	}
	score := sum / float64(n)
	return scorecards.Axis{Name: scorecards.AxisStability, Score: &score, Weight: scorecards.DefaultWeight(scorecards.AxisStability),
		Checks: checks, Summary: fmt.Sprintf("round-to-round throughput spread of %d targets", n)}, true
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

func geomean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		if x <= 0 {
			return 0
		}
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}

func coefficientOfVariation(xs []float64) float64 {
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if mean == 0 {
		return 0
	}
	var v float64
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return math.Sqrt(v/float64(len(xs)-1)) / mean
}
