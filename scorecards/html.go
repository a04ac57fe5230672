package scorecards

import (
	_ "embed"
	"html/template"
	"strings"
)

// HTMLOptions add to a scorecard's page what the scorecard does not hold.
type HTMLOptions struct {
	// Figures are charts drawn elsewhere, such as a load run's latency
	// spectrum and throughput, shown under their sections.
	Figures []Figure
}

// Figure is one chart of the page: a self-contained SVG document (no
// script, no external reference) that the page inserts as it is, so it
// must come from trusted code such as harness/load/chart.
type Figure struct {
	// Section heads the figures that share it, in the order the sections
	// first appear.
	Section string
	// SVG is the chart's markup.
	SVG string
}

//go:embed html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("scorecard.html").Parse(htmlSource))

// HTML renders the scorecard as one self-contained page (scorecard.html,
// inline CSS, SVG and script, no network asset): the verdict and overall
// score, every axis with its score bar, weight and summary, the gates, the
// correctness levels, each axis's checks (failed ones first, collapsible),
// the figures of o, and the target and machine.
func (s Scorecard) HTML(o HTMLOptions) (string, error) {
	var b strings.Builder
	if err := htmlTemplate.Execute(&b, newPageView(s, o)); err != nil {
		return "", err
	}
	return b.String(), nil
}
