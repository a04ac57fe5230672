package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/thoughtbox-bench/tbbench/scorecards/regress"
)

// Exit statuses of tbbench compare. Nothing judged (too few rounds for any
// load figure to detect a difference, or nothing compared at all) shares
// status 2 with bad input: neither is a pass.
const (
	exitCompareOK            = 0
	exitCompareRegression    = 1
	exitCompareBadInput      = 2
	exitCompareNothingJudged = 2
)

func runCompare(args []string) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	gateFile := fs.String("gate", "", "gate `file` (YAML or JSON): floors, drop limits per axis and limits per load figure")
	baseDir := fs.String("baseline-dir", "", "`directory` of saved baselines: compare with the one of the current run's target and machine")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: tbbench compare [flags] BASELINE CURRENT
       tbbench compare [flags] --baseline-dir DIR CURRENT

Sets a run against a baseline. Each is a scorecard.json, or a run directory
holding scorecard.json and maybe load.json (a saved baseline NAME.json
brings NAME.load.json). Axis scores and level pass rates: a drop of more
than 5 pp is a regression. Load figures (throughput, p99, thought p99 per
target, one value per round): a Mann-Whitney U test (alpha 0.05) and a
confidence interval on the ratio; a significant change for the worse of
more than 5 % is a regression, no significant difference never is. With
too few rounds (3 against 3 at alpha 0.05) the U test can never reach
p < alpha: such a figure cannot detect a difference, and when none can the
comparison judged nothing (the report's first line says so). Runs on
machines of different fingerprints are shown but not gated. A gate file
sets floors and other limits, e.g.

  robustness: ">=0.95"
  correctness: "drop<2pp"
  throughput{target:memory}: "drop<10%"
  p99{target:fs}: "rise<20%"

The report (Markdown) goes to stdout and is appended to $GITHUB_STEP_SUMMARY
when that is set.

Exit status: 0 no regression (or not comparable), 1 regression, 2 nothing
judged (no load figure can detect a difference, or nothing in common to
compare) or bad input.

Flags:
`)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitCompareOK
		}
		return exitCompareBadInput
	}
	start := time.Now()
	res, err := compare(pos, *baseDir, *gateFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench compare:", err)
		return exitCompareBadInput
	}
	md := res.Markdown()
	fmt.Print(md)
	summaryErr := appendStepSummary(md)
	// The headline is the first line on stderr too.
	fmt.Fprintf(os.Stderr, "tbbench compare: %s (in %s)\n", res.Headline(), time.Since(start).Round(time.Millisecond))
	if summaryErr != nil {
		fmt.Fprintln(os.Stderr, "tbbench compare: GITHUB_STEP_SUMMARY:", summaryErr)
	}
	switch {
	case res.Regressed(): // a regression outranks nothing judged
		return exitCompareRegression
	case res.NothingJudged():
		return exitCompareNothingJudged
	}
	return exitCompareOK
}

// compare reads the runs and the gates and compares.
func compare(pos []string, baseDir, gateFile string) (regress.Result, error) {
	var basePath, curPath string
	switch {
	case baseDir != "" && len(pos) == 1:
		curPath = pos[0]
	case baseDir == "" && len(pos) == 2:
		basePath, curPath = pos[0], pos[1]
	case baseDir != "":
		return regress.Result{}, fmt.Errorf("with --baseline-dir, name only the current run (got %d arguments)", len(pos))
	default:
		return regress.Result{}, fmt.Errorf("name the baseline and the current run (got %d arguments)", len(pos))
	}
	gates := regress.DefaultGates()
	if gateFile != "" {
		var err error
		if gates, err = regress.ReadGates(gateFile); err != nil {
			return regress.Result{}, fmt.Errorf("gate file %w", err)
		}
	}
	if baseDir != "" {
		cur, err := regress.Open(curPath)
		if err != nil {
			return regress.Result{}, fmt.Errorf("current run: %w", err)
		}
		b, err := regress.Find(baseDir, cur.Scorecard)
		if err != nil {
			return regress.Result{}, err
		}
		basePath = b.Path
	}
	base, cur, err := regress.OpenPair(basePath, curPath)
	if err != nil {
		return regress.Result{}, err
	}
	return regress.Compare(base, cur, gates), nil
}

// appendStepSummary appends the report to the file $GITHUB_STEP_SUMMARY
// names, if it names one.
func appendStepSummary(md string) error {
	path := os.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, md+"\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// parseInterspersed parses flags given before, between or after the
// positional arguments, and returns those.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}
