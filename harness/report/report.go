// Package report writes the human views of a scorecard beside its
// scorecard.json in a run directory: scorecard.md, and scorecard.html, one
// self-contained page that also draws the charts of the directory's
// load.json when the run has one.
//
// It has that one job, joining two packages that cannot import each other:
// package scorecards renders a scorecard but knows nothing of load runs,
// and load.json's model (harness/load/loadreport, which draws the charts)
// imports scorecards for the machine, checks and scorecard it records, so
// scorecards cannot import it back. This package imports both, and neither
// the load runner nor any target: it reads load.json with loadreport.
package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
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
// page shows the charts of dir/load.json when that file exists. A load.json
// that cannot be read is reported, and the page is written without its
// charts.
func WriteViews(dir string, card scorecards.Scorecard) error {
	mdErr := os.WriteFile(filepath.Join(dir, MarkdownFile), []byte(card.Markdown()), 0o644)
	figs, figErr := Figures(dir)
	page, err := card.HTML(scorecards.HTMLOptions{Figures: figs})
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, HTMLFile), []byte(page), 0o644)
	}
	return errors.Join(mdErr, figErr, err)
}

// Figures returns the charts of dir/load.json (loadreport's
// Report.Figures): the latency spectra, the throughput per target (each
// storage mode and the ceiling), and throughput and p99 latency over time.
// It returns none, and no error, when dir has no load.json.
func Figures(dir string) ([]scorecards.Figure, error) {
	path := filepath.Join(dir, LoadFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	r, err := loadreport.ReadReport(path)
	if err != nil {
		return nil, fmt.Errorf("charts of the load run: %w", err)
	}
	return r.Figures(), nil
}
