package scorecards

import (
	"fmt"
	"strings"
)

// ChecksAxis returns an axis scored as the share of checks passed among
// those judged (not applicable and inconclusive ones are left out), for
// the axes that are lists of pass/fail checks (robustness, conformance,
// observability, security...). With no check judged the axis is not
// measured (nil score). Use [DefaultWeight] for the §5.7 weight of a
// standard axis.
func ChecksAxis(name string, weight float64, checks []Check) Axis {
	passed, na, unsure := 0, 0, 0
	for _, c := range checks {
		switch {
		case c.NotApplicable:
			na++
		case c.Inconclusive:
			unsure++
		case c.Passed:
			passed++
		}
	}
	judged := len(checks) - na - unsure
	a := Axis{
		Name:   name,
		Score:  ratio(passed, judged),
		Weight: weight,
		Checks: append([]Check(nil), checks...),
	}
	switch {
	case len(checks) == 0:
		a.Summary = "no check ran"
	case judged == 0 && unsure == 0:
		a.Summary = fmt.Sprintf("none of %d checks applicable", len(checks))
	case judged == 0:
		a.Summary = fmt.Sprintf("none of %d checks judged", len(checks))
	default:
		a.Summary = fmt.Sprintf("%d of %d checks passed", passed, judged)
	}
	if judged > 0 {
		if unsure > 0 {
			a.Summary += fmt.Sprintf(", %d inconclusive", unsure)
		}
		if na > 0 {
			a.Summary += fmt.Sprintf(", %d not applicable", na)
		}
	}
	return a
}

// ChecksGate is the gate of a run whose verdict is an axis of checks (the
// robustness catalogue, the official suite): it passes when the axis is
// measured and no check failed, is inconclusive when none failed but one
// could not tell, and fails when a check failed or none was judged.
func ChecksGate(name string, a Axis) Gate {
	g := Gate{Name: name}
	var failed []string
	unsure := 0
	for _, c := range a.Checks {
		switch {
		case c.Failed():
			failed = append(failed, c.Name)
		case c.Inconclusive:
			unsure++
		}
	}
	switch {
	case len(failed) > 0:
		g.Detail = fmt.Sprintf("%d failed: %s", len(failed), strings.Join(failed[:min(len(failed), 5)], ", "))
		if len(failed) > 5 {
			g.Detail += ", …"
		}
	case !a.Measured():
		g.Detail = a.Name + " not measured: " + a.Summary
	case unsure > 0:
		g.Inconclusive = true
		g.Detail = fmt.Sprintf("%d inconclusive, none failed", unsure)
	default:
		g.Passed = true
		g.Detail = a.Summary
	}
	return g
}
