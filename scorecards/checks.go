package scorecards

import "fmt"

// ChecksAxis returns an axis scored as the share of checks passed among
// those judged (not applicable ones are left out), for the axes that are
// lists of pass/fail checks (robustness, conformance, observability,
// security...). With no check judged the axis is not measured (nil score).
// Use [DefaultWeight] for the §5.7 weight of a standard axis.
func ChecksAxis(name string, weight float64, checks []Check) Axis {
	passed, na := 0, 0
	for _, c := range checks {
		switch {
		case c.NotApplicable:
			na++
		case c.Passed:
			passed++
		}
	}
	judged := len(checks) - na
	a := Axis{
		Name:   name,
		Score:  ratio(passed, judged),
		Weight: weight,
		Checks: append([]Check(nil), checks...),
	}
	switch {
	case len(checks) == 0:
		a.Summary = "no check ran"
	case judged == 0:
		a.Summary = fmt.Sprintf("none of %d checks applicable", len(checks))
	default:
		a.Summary = fmt.Sprintf("%d of %d checks passed", passed, judged)
	}
	if na > 0 && judged > 0 {
		a.Summary += fmt.Sprintf(", %d not applicable", na)
	}
	return a
}
