package loadreport

import (
	"fmt"

	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// observabilityAxis scores the watcher's checks as the share passed.
func (r *Report) observabilityAxis() (scorecards.Axis, bool) {
	if len(r.Observability) == 0 {
		return scorecards.Axis{}, false
	}
	a := scorecards.ChecksAxis(scorecards.AxisObservability, scorecards.DefaultWeight(scorecards.AxisObservability), r.Observability)
	a.Summary = "after the load, in Prometheus scraping the sidecar: " + a.Summary + " (every dashboard panel query and alert rule returns data)"
	return a, true
}

// observabilityLine is the summary's line about the watch.
func (r *Report) observabilityLine() string {
	if len(r.Observability) == 0 {
		if r.ObservabilityNote == "" {
			return ""
		}
		return "observability " + r.ObservabilityNote + "\n"
	}
	a, _ := r.observabilityAxis()
	line := "observability: " + a.Summary + "\n"
	for _, c := range r.Observability {
		switch {
		case c.NotApplicable:
			line += fmt.Sprintf("  not applicable: %s: %s\n", c.Name, c.Detail)
		case !c.Passed:
			line += fmt.Sprintf("  FAILED %s: %s\n", c.Name, c.Detail)
		}
	}
	return line
}
