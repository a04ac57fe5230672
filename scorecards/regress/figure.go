package regress

import (
	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
)

// The verdicts of a load figure.
const (
	VerdictRegression    = "regression"
	VerdictWorse         = "worse, within the limit"
	VerdictWorseUngated  = "worse, not gated"
	VerdictImprovement   = "improvement"
	VerdictNoDifference  = "no significant difference"
	VerdictUndetectable  = "cannot detect: too few rounds"
	VerdictNotComparable = "not gated: other machine"
)

// Figure is one load figure of one target, round by round, in the baseline
// and in the current run.
type Figure struct {
	// Target is the target's label (a storage mode, or "ceiling"); Name
	// is FigureThroughput, FigureP99 or FigureThoughtP99.
	Target, Name string
	// Baseline and Current are the values of the rounds, in round order.
	Baseline, Current []float64
	Shift             Shift
	// Detectable says whether the U test could find a difference at the
	// gates' α at all with this many rounds: MinP(N1, N2) < α, whatever
	// the values. When it cannot, Undetectable says why and how many rounds
	// are needed, and the verdict is VerdictUndetectable.
	Detectable   bool
	Undetectable string
	// Gated says whether the figure can regress; Limit is then the largest
	// change for the worse that is not a regression (Strict: the limit
	// itself is one), and Rule the gate rule that set it, if any.
	Gated  bool
	Limit  float64
	Strict bool
	Rule   *Rule
	// Verdict is one of the Verdict* constants; Regressed is true for a
	// regression on a comparable machine.
	Verdict   string
	Regressed bool
}

// HigherIsBetter reports whether a rise of the figure is an improvement
// (throughput) rather than a slowdown (latency).
func (f Figure) HigherIsBetter() bool { return f.Name == FigureThroughput }

// Unit returns the unit of the figure's values.
func (f Figure) Unit() string {
	if f.HigherIsBetter() {
		return "calls/s"
	}
	return "ms"
}

// Worse returns the estimated change for the worse as a fraction of the
// baseline (0.12: 12 % less throughput, or 12 % more latency); negative
// for a change for the better.
func (f Figure) Worse() float64 {
	if f.HigherIsBetter() {
		return 1 - f.Shift.Ratio
	}
	return f.Shift.Ratio - 1
}

// figure compares one figure of one target under the gates.
func (g *Gates) figure(target, name string, base, cur []float64, comparable bool) Figure {
	f := Figure{Target: target, Name: name, Baseline: base, Current: cur, Shift: shift(base, cur, g.Alpha)}
	f.Detectable, f.Undetectable = detectable(f.Shift.N1, f.Shift.N2, g.Alpha)
	if r := g.figureRule(target, name); r != nil {
		f.Gated, f.Limit, f.Strict, f.Rule = true, r.Value, r.Strict, r
	} else if target != loadreport.CeilingLabel {
		f.Gated, f.Limit = true, g.MinEffect
	}
	worse := f.Worse()
	beyond := worse > f.Limit || (f.Strict && worse >= f.Limit)
	switch {
	case !f.Detectable:
		f.Verdict = VerdictUndetectable
	case !f.Shift.Significant(g.Alpha):
		f.Verdict = VerdictNoDifference
	case worse <= 0:
		f.Verdict = VerdictImprovement
	case !f.Gated:
		f.Verdict = VerdictWorseUngated
	case !beyond:
		f.Verdict = VerdictWorse
	case !comparable:
		f.Verdict = VerdictNotComparable
	default:
		f.Verdict, f.Regressed = VerdictRegression, true
	}
	return f
}

// figureRule returns the rule that limits a figure of a target: one that
// names the target, else one for every target (which leaves the ceiling
// out); nil when none does.
func (g *Gates) figureRule(target, name string) *Rule {
	var generic *Rule
	for i := range g.Rules {
		r := &g.Rules[i]
		if r.Kind != SubjectFigure || r.Name != name {
			continue
		}
		if r.Target == target {
			return r
		}
		if r.Target == "" && target != loadreport.CeilingLabel && generic == nil {
			generic = r
		}
	}
	return generic
}
