package regress

import (
	"fmt"

	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// check checks one gate rule against the comparison.
func (res *Result) check(r Rule) Outcome {
	switch {
	case r.Kind == SubjectFigure:
		return res.checkFigure(r)
	case r.Op == "drop":
		return res.checkDrop(r)
	}
	return res.checkFloor(r)
}

// score returns the current or baseline value of a rule's score subject,
// nil when not measured.
func score(s scorecards.Scorecard, r Rule) *float64 {
	switch r.Kind {
	case SubjectOverall:
		return s.Overall
	case SubjectAxis:
		a, _ := s.Axis(r.Name)
		return a.Score
	case SubjectLevel:
		a, _ := s.Axis(scorecards.AxisCorrectness)
		for _, l := range a.Levels {
			if string(l.Level) == r.Name {
				if v, ok := l.PassRate(); ok {
					return &v
				}
			}
		}
	}
	return nil
}

// checkFloor checks ">=X" or ">X" on the current run's score.
func (res *Result) checkFloor(r Rule) Outcome {
	v := score(res.Current.Scorecard, r)
	if v == nil {
		return Outcome{Rule: r, Detail: "not measured in this run"}
	}
	passed := *v >= r.Value-strictEps/10
	if r.Strict {
		passed = *v > r.Value
	}
	return Outcome{Rule: r, Passed: passed, Detail: pct(*v)}
}

// checkDrop checks "drop<X" on a score: the axis and level limits were
// given to scorecards.CompareLimits; the overall score's is checked here.
func (res *Result) checkDrop(r Rule) Outcome {
	b, c := score(res.Baseline.Scorecard, r), score(res.Current.Scorecard, r)
	if b == nil || c == nil {
		return Outcome{Rule: r, Detail: "not measured in both runs"}
	}
	drop := *b - *c
	passed := drop <= r.Value+strictEps/10
	if r.Strict {
		passed = drop < r.Value-strictEps/10
	}
	return Outcome{Rule: r, Passed: passed, Detail: fmt.Sprintf("%s → %s (%s)", pct(*b), pct(*c), pp(-drop))}
}

// checkFigure checks a figure rule on every figure it limits.
func (res *Result) checkFigure(r Rule) Outcome {
	o := Outcome{Rule: r, Passed: true}
	n := 0
	for _, f := range res.Figures {
		if f.Rule == nil || f.Rule.Line != r.Line || f.Rule.Cond != r.Cond {
			continue
		}
		n++
		if o.Detail != "" {
			o.Detail += "; "
		}
		o.Detail += fmt.Sprintf("%s %s %s", f.Target, signedPct(f.Shift.Ratio-1), f.Verdict)
		if f.Verdict == VerdictRegression || f.Verdict == VerdictNotComparable {
			o.Passed = false
		}
	}
	if n == 0 {
		o.Passed = false
		o.Detail = "no such figure measured in both runs"
	}
	return o
}
