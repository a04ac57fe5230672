package main

import (
	"github.com/thoughtbox-bench/tbbench/harness/report"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// writeScorecardViews writes scorecard.md and scorecard.html beside
// scorecard.json; the page carries the charts of the run's load.json, if
// any.
func writeScorecardViews(c scorecards.Scorecard, dir string) error {
	return report.WriteViews(dir, c)
}
