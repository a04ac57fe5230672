package loadreport

import (
	"fmt"
	"math"
	"slices"

	"github.com/thoughtbox-bench/tbbench/harness/load/threshold"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/observability/outcome"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// Targets of the performance axis: ratios to the no-op ceiling measured in
// the same run, round by round, so that the score judges the server and not
// how busy the machine was.
var (
	// CPUPerCallVsCeiling is the server CPU time per call a subject should
	// keep to, as a multiple of the ceiling's, by label; other labels use
	// DefaultCPUPerCallVsCeiling.
	CPUPerCallVsCeiling = map[string]float64{"memory": 1.25, "fs": 1.6}
	// DefaultCPUPerCallVsCeiling applies to subjects without their own.
	DefaultCPUPerCallVsCeiling = 2.0
	// ThoughtP99VsCeiling is the thought's p99 latency a subject should
	// keep to, as a multiple of the ceiling's.
	ThoughtP99VsCeiling = 2.0
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
// stability and (when the run's Watcher made checks) observability axes
// and the load gates (scored as written in scorecards/README.md). The
// target is the first measured one that is not the ceiling.
func (r *Report) Scorecard(h scorecards.Harness) scorecards.Scorecard {
	c := scorecards.Scorecard{RunID: r.RunID, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, Harness: h, Machine: r.Machine}
	for i := len(r.Targets) - 1; i >= 0; i-- {
		// The first target that is not the ceiling, else the ceiling.
		if t := r.Targets[i]; t.Label != CeilingLabel || c.Target.Kind == "" {
			c.Target = scorecards.Target{Name: t.Label, Kind: t.Kind, Address: t.Address, Transport: t.Transport, Storage: t.Storage,
				Profile: t.Profile}
		}
	}
	// A run whose ceiling could not hold the tier measured the machine:
	// no performance or stability score comes from it.
	if !r.ceilingMissed() {
		if a, ok := r.performanceAxis(); ok {
			c.Axes = append(c.Axes, a)
		}
		if a, ok := r.stabilityAxis(); ok {
			c.Axes = append(c.Axes, a)
		}
	}
	if a, ok := r.observabilityAxis(); ok {
		c.Axes = append(c.Axes, a)
	}
	lost, acked := r.Lost(), r.Acknowledged()
	detail := fmt.Sprintf("%d of %d acknowledged thoughts lost (read back without them)", lost, acked)
	if n := r.Unverifiable(); n > 0 {
		detail += fmt.Sprintf("; %d could not be checked (see load.md)", n)
	}
	thresholds := scorecards.Gate{Name: GateThresholds, Passed: !r.ThresholdsFailed(), Detail: fmt.Sprintf("%d problems", len(r.Problems))}
	if r.Verdict == VerdictInconclusive && !r.ThresholdsFailed() {
		thresholds.Passed, thresholds.Inconclusive, thresholds.Detail = false, true, r.Inconclusive
	}
	verified := slices.ContainsFunc(r.Phases, func(p PhaseResult) bool { return p.Verification != nil })
	if verified && acked == 0 {
		detail = "the targets acknowledged no thought: nothing kept, so nothing shown not lost"
	}
	noLoss := scorecards.Gate{Name: GateNoLoss, Passed: lost == 0 && (acked > 0 || !verified), Detail: detail}
	if n := r.Unread(); n > 0 && lost == 0 {
		noLoss.Passed, noLoss.Inconclusive = false, true
		noLoss.Detail += fmt.Sprintf("; %d got no answer when read back: the run cannot tell whether they were kept", n)
	}
	c.Gates = append(c.Gates, noLoss, thresholds)
	c.Finish()
	return c
}

// performanceAxis is the geometric mean, over its items, of
// clamp(target/observed, 0, 1) for each subject's server CPU per call and
// thought p99 as ratios to the ceiling of the same run (estimates of the
// paired rounds), and for the long session's last thoughts against its
// first; the stress tier's maximum sustainable rate is a check. No item is
// in absolute milliseconds.
func (r *Report) performanceAxis() (scorecards.Axis, bool) {
	var checks []scorecards.Check
	var items []float64
	for _, x := range r.Ratios {
		if x.Versus != threshold.VersusCeiling {
			continue
		}
		var want float64
		var what string
		switch {
		case x.Figure == string(threshold.CPUPerCall):
			want, what = DefaultCPUPerCallVsCeiling, "server CPU per call"
			if v, ok := CPUPerCallVsCeiling[x.Subject]; ok {
				want = v
			}
		case x.Op == string(workload.OpThought) && x.Figure == "p(99)":
			want, what = ThoughtP99VsCeiling, "thought p99"
		default:
			continue
		}
		items = append(items, clamp01(want/x.Estimate))
		st := judgeAtMost(x, want)
		checks = append(checks, scorecards.Check{Name: fmt.Sprintf("%s %s ≤ %.2f× the ceiling's", x.Subject, what, want),
			Passed: st == threshold.Passed, Inconclusive: st == threshold.Inconclusive, Detail: intervalCell(x)})
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
		Checks: checks, Summary: fmt.Sprintf("geometric mean of %d items (server CPU per call and thought p99 against the ceiling, long session)", len(items))}, true
}

// ceilingMissed reports whether the ceiling missed one of its conditions:
// the machine could not sustain the tier.
func (r *Report) ceilingMissed() bool {
	for _, c := range r.CeilingConditions {
		if c.Status != threshold.Passed.String() && c.Status != threshold.NotApplicable.String() && c.Status != "" {
			return true
		}
	}
	return false
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
			transport += errorClasses(p.Metrics)[outcome.Transport].Count
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

// judgeAtMost judges "x ≤ limit" on x's interval (threshold.JudgeInterval):
// passed when the whole interval is at or below the limit, failed when all
// of it is above, inconclusive when it straddles the limit or there is
// none (one round, or no rounds: JudgeInterval's no data).
func judgeAtMost(x Ratio, limit float64) threshold.Status {
	iv := threshold.Interval{Estimate: x.Estimate, Low: x.Low, High: x.High, N: len(x.Rounds)}
	if !x.Bounded {
		iv.Low, iv.High = math.Inf(-1), math.Inf(1)
	}
	st := threshold.JudgeInterval(threshold.Expression{Operator: threshold.LessEqual, Value: limit}, iv)
	if st == threshold.NoData {
		return threshold.Inconclusive
	}
	return st
}
