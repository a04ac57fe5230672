// Package report writes the human views of a scorecard beside its
// scorecard.json: scorecard.md, and scorecard.html, one self-contained page
// that also draws the charts of the run directory's load.json (with
// harness/load/chart) when the run has one. It sits in harness because the
// scorecards package must not import the harness.
package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/thoughtbox-bench/tbbench/harness/load"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// The files a run directory holds.
const (
	// LoadFile is a load run's report, whose charts the page shows.
	LoadFile = "load.json"
	// MarkdownFile and HTMLFile are the views WriteViews writes.
	MarkdownFile = "scorecard.md"
	HTMLFile     = "scorecard.html"
)

// WriteViews writes scorecard.md and scorecard.html for card into dir. The
// page shows the charts of dir/load.json when that file exists, and the
// comparison with a baseline when cmp is not nil. A load.json that cannot
// be read is reported, and the page is written without its charts.
func WriteViews(dir string, card scorecards.Scorecard, cmp *scorecards.Comparison) error {
	mdErr := os.WriteFile(filepath.Join(dir, MarkdownFile), []byte(card.Markdown()), 0o644)
	figs, figErr := Figures(dir)
	page, err := card.HTML(scorecards.HTMLOptions{Figures: figs, Comparison: cmp})
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, HTMLFile), []byte(page), 0o644)
	}
	return errors.Join(mdErr, figErr, err)
}

// Figures returns the charts of dir/load.json: the latency spectra, the
// throughput per target (each storage mode and the ceiling), and
// throughput and p99 latency over time. It returns none, and no error,
// when dir has no load.json.
func Figures(dir string) ([]scorecards.Figure, error) {
	path := filepath.Join(dir, LoadFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	r, err := load.ReadReport(path)
	if err != nil {
		return nil, fmt.Errorf("charts of the load run: %w", err)
	}
	var figs []scorecards.Figure
	add := func(section string, svgs ...string) {
		for _, svg := range svgs {
			if svg != "" {
				figs = append(figs, scorecards.Figure{Section: section, SVG: svg})
			}
		}
	}
	add("Latency spectrum (load, tier "+r.Tier+")", r.LatencyCharts()...)
	add("Throughput per target", r.ThroughputChart())
	add("Over time", r.OverTimeCharts()...)
	return figs, nil
}
