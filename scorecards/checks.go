package scorecards

import "fmt"

// ChecksAxis returns an axis scored as the share of checks passed, for the
// axes that are lists of pass/fail checks (robustness, conformance,
// observability, security...). With no check the axis is not measured (nil
// score). Use [DefaultWeight] for the §5.7 weight of a standard axis.
func ChecksAxis(name string, weight float64, checks []Check) Axis {
	passed := 0
	for _, c := range checks {
		if c.Passed {
			passed++
		}
	}
	a := Axis{
		Name:   name,
		Score:  ratio(passed, len(checks)),
		Weight: weight,
		Checks: append([]Check(nil), checks...),
	}
	if len(checks) == 0 {
		a.Summary = "no check ran"
	} else {
		a.Summary = fmt.Sprintf("%d of %d checks passed", passed, len(checks))
	}
	return a
}
