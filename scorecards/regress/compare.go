package regress

import (
	"fmt"
	"slices"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// strictEps turns a strict limit ("drop<2pp") into the largest drop that
// passes, for scorecards.CompareLimits, which fails drops above its limit.
const strictEps = 1e-7

// Result is a run set against a baseline.
type Result struct {
	Baseline, Current Run
	// Gates are the gates applied (DefaultGates without a gate file).
	Gates *Gates
	// Comparable is false when the machine fingerprints differ: then
	// nothing is gated.
	Comparable bool
	// Scores compares the axis scores and level pass rates.
	Scores scorecards.Comparison
	// Figures compares the load figures of the targets both runs measured.
	Figures []Figure
	// Outcomes are the gate file's rules, each checked.
	Outcomes []Outcome
	// Notes are differences worth knowing that are not regressions.
	Notes []string
}

// Outcome is a gate rule checked against the comparison.
type Outcome struct {
	Rule   Rule
	Passed bool
	Detail string
}

// Regressed reports whether the run regressed: on a comparable machine, a
// score dropped beyond its limit, a load figure changed for the worse
// significantly and beyond its limit, or a gate rule failed.
func (r Result) Regressed() bool {
	if !r.Comparable {
		return false
	}
	if len(r.Scores.Regressions) > 0 {
		return true
	}
	for _, f := range r.Figures {
		if f.Regressed {
			return true
		}
	}
	for _, o := range r.Outcomes {
		if !o.Passed {
			return true
		}
	}
	return false
}

// NothingJudged reports whether the comparison could not have found a
// regression at all, on a comparable machine: there are load figures but
// none of them can detect a difference with so few rounds (whatever the
// scores say: scores built on absolute milliseconds fall when the machine
// is busy, so they alone are no judgement of load), or there are no load
// figures, no gated score measured in both runs and no gate rule on a
// score that passed. Runs on different machines are not gated and never
// "nothing judged". A regression (Regressed) outranks it.
func (r Result) NothingJudged() bool {
	if !r.Comparable {
		return false
	}
	if len(r.Figures) > 0 {
		return len(r.undetectable()) == len(r.Figures)
	}
	for _, d := range r.Scores.Deltas {
		if d.Gated && d.Baseline != nil && d.Current != nil {
			return false
		}
	}
	for _, o := range r.Outcomes {
		if o.Passed && o.Rule.Kind != SubjectFigure {
			return false
		}
	}
	return true
}

// undetectable returns the load figures that cannot detect a difference.
func (r Result) undetectable() []Figure {
	var out []Figure
	for _, f := range r.Figures {
		if !f.Detectable {
			out = append(out, f)
		}
	}
	return out
}

// Compare sets the current run against the baseline under the gates (nil:
// DefaultGates).
func Compare(base, cur Run, g *Gates) Result {
	if g == nil {
		g = DefaultGates()
	}
	res := Result{Baseline: base, Current: cur, Gates: g}
	res.Scores = scorecards.CompareLimits(base.Scorecard, cur.Scorecard, g.scoreLimits())
	res.Comparable = res.Scores.Comparable
	res.Notes = append(res.Notes, res.Scores.Notes...)
	res.compareLoad()
	for _, rule := range g.Rules {
		res.Outcomes = append(res.Outcomes, res.check(rule))
	}
	return res
}

// scoreLimits returns the drop limits the rules set on axes and levels, and
// the minimum effect for the others.
func (g *Gates) scoreLimits() scorecards.Limits {
	effect := g.MinEffect
	l := scorecards.Limits{Axes: map[string]float64{}, Levels: map[scorecards.Level]float64{}, Default: &effect}
	for _, r := range g.Rules {
		if r.Op != "drop" {
			continue
		}
		v := r.Value
		if r.Strict {
			v -= strictEps
		}
		switch r.Kind {
		case SubjectAxis:
			l.Axes[r.Name] = v
		case SubjectLevel:
			l.Levels[scorecards.Level(r.Name)] = v
		}
	}
	return l
}

// compareLoad compares the load figures of every target both runs
// measured in rounds.
func (res *Result) compareLoad() {
	b, c := res.Baseline.Load, res.Current.Load
	switch {
	case b == nil && c == nil:
		return
	case b == nil:
		res.Notes = append(res.Notes, "this run has a load.json, the baseline has none: the load figures are not compared")
		return
	case c == nil:
		res.Notes = append(res.Notes, "the baseline has a load.json, this run has none: the load figures are not compared")
		return
	}
	if b.Tier != c.Tier {
		res.Notes = append(res.Notes, fmt.Sprintf("load tier differs: baseline %q, this run %q", b.Tier, c.Tier))
	}
	if b.WorkloadHash != c.WorkloadHash {
		res.Notes = append(res.Notes, fmt.Sprintf("workload differs: baseline %s, this run %s", b.WorkloadHash, c.WorkloadHash))
	}
	for _, label := range labelsOf(b, c) {
		br, cr := b.Rounds(label), c.Rounds(label)
		switch {
		case len(br) == 0 && len(cr) == 0:
			continue
		case len(cr) == 0:
			res.Notes = append(res.Notes, fmt.Sprintf("target %s was measured in the baseline's rounds but not in this run's", label))
			continue
		case len(br) == 0:
			res.Notes = append(res.Notes, fmt.Sprintf("target %s is measured in this run's rounds but not in the baseline's", label))
			continue
		}
		for _, name := range figureNames {
			res.Figures = append(res.Figures, res.Gates.figure(label, name, values(br, name), values(cr, name), res.Comparable))
		}
	}
}

// labelsOf returns the target labels of both reports, the baseline's
// first.
func labelsOf(b, c *loadreport.Report) []string {
	var out []string
	for _, r := range []*loadreport.Report{b, c} {
		for _, t := range r.Targets {
			if !slices.Contains(out, t.Label) {
				out = append(out, t.Label)
			}
		}
	}
	return out
}

// values returns one figure of every round.
func values(rounds []loadreport.RoundFigures, name string) []float64 {
	out := make([]float64, len(rounds))
	for i, r := range rounds {
		switch name {
		case FigureThroughput:
			out[i] = r.Throughput
		case FigureP99:
			out[i] = r.P99Ms
		case FigureThoughtP99:
			out[i] = r.ThoughtP99Ms
		}
	}
	return out
}
