package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/thoughtbox-bench/tbbench/features"
	"github.com/thoughtbox-bench/tbbench/harness/conform"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// Exit statuses of tbbench conform.
const (
	exitPass        = 0
	exitFail        = 1
	exitUnreachable = 2
)

func runConform(args []string) int {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	tf := addTargetFlags(fs)
	var (
		require     = fs.String("require", "", "comma-separated `levels` that must pass (default core,intent for the embedded server, core otherwise)")
		out         = fs.String("out", "out", "`directory` for the run's output directory")
		runID       = fs.String("run-id", "", "name of the run's output directory (default: time, transport and storage)")
		concurrency = fs.Int("concurrency", 4, "scenarios run at once")
		tags        = fs.String("tags", "", "godog tag `expression` selecting scenarios, e.g. \"@ledger && ~@quirk\"")
		progress    = fs.String("progress", "auto", "`auto`, bar or lines")
		repeat      = fs.Int("repeat", 1, "run the scenarios `k` times against the same target; a scenario whose result changes is flaky (the stability axis, pass^k)")
	)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: tbbench conform [flags]

Runs every scenario of the embedded feature files against one target and
writes, under <out>/<run-id>/: conformance.json and .md, junit.xml,
cucumber.json, scorecard.json and .md, and one JSONL transcript per scenario.
Target: the embedded reference server (default), --url, or --command. The
traffic goes through an mcp-sidecar proxy started in this process (unless
--direct); its counts per method, tool and operation must equal the
harness's own (the scorecard's observability axis).

Exit status: 0 when every scenario of the required levels passed, 1 when some
failed, 2 when the target could not be started or reached.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass
		}
		return exitUnreachable
	}
	spec := tf.spec()
	if err := spec.Validate(); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitUnreachable
	}
	kind := spec.Kind()
	required := []string{"core"}
	if kind == target.KindEmbedded {
		required = []string{"core", "intent"}
	}
	if *require != "" {
		required = strings.Split(*require, ",")
	}
	if *runID == "" {
		*runID = defaultRunID(spec)
	}
	dir := filepath.Join(*out, *runID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitUnreachable
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	tg, err := spec.Open(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		fmt.Println("0 passed, 0 failed")
		return exitUnreachable
	}
	defer tg.Close()
	info := tg.Info()
	fmt.Fprintf(os.Stderr, "tbbench conform: %s (%s", info.Address, info.Transport)
	if info.Storage != "" {
		fmt.Fprintf(os.Stderr, ", %s storage", info.Storage)
	}
	via := "through an in-process mcp-sidecar"
	if spec.Direct {
		via = "directly"
	}
	fmt.Fprintf(os.Stderr, "), %s, required levels %s, output %s\n", via, strings.Join(required, ","), dir)

	rep, stab, err := conform.Repeat(ctx, conform.Options{Target: tg, OutDir: dir, Required: required, Concurrency: *concurrency,
		Tags: *tags, Progress: newProgress(*progress, conform.CountScenarios(features.FS))}, *repeat, repeatDone(*repeat))
	finishProgress()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		fmt.Println("0 passed, 0 failed")
		if errors.Is(err, target.ErrUnreachable) {
			return exitUnreachable
		}
		return exitFail
	}
	card := rep.Scorecard(scorecards.Harness{Version: version, GoVersion: runtime.Version()})
	card.Axes = append(card.Axes, stab.Axes()...)
	card.Finish()
	var errs []error
	for _, write := range []func() (string, error){
		func() (string, error) { return rep.WriteJSON(dir) },
		func() (string, error) { return rep.WriteMarkdown(dir) },
		func() (string, error) { return writeScorecard(card, dir) },
		func() (string, error) { return stab.Write(dir) },
	} {
		if _, err := write(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench: writing results:", err)
	}
	passed, failed, na := rep.Tally()
	fmt.Printf("\n%-8s %7s %7s %s\n", "level", "passed", "failed", "")
	for _, l := range rep.Levels {
		role := "informational"
		if l.Required {
			role = "required"
		}
		fmt.Printf("%-8s %7d %7d %s\n", l.Level, l.Passed, l.Failed, role)
	}
	for _, s := range rep.Scenarios {
		if s.Status == conform.Failed && s.Level != "quirk" {
			fmt.Printf("FAILED @%s %s / %s\n  %s\n  transcript: %s\n", s.Level, s.Feature, s.Name,
				firstLine(s.Failure), s.Transcript)
		}
	}
	if na > 0 {
		fmt.Printf("%d scenarios not applicable to this target\n", na)
	}
	printStability(stab)
	if a, ok := card.Axis(scorecards.AxisObservability); ok && a.Score != nil {
		fmt.Printf("observability %.1f%%: %s\n", *a.Score*100, a.Summary)
	}
	fmt.Printf("verdict %s, correctness %s, %d scenarios in %.1f s; results in %s\n", card.Verdict,
		score(card), passed+failed+na, time.Since(start).Seconds(), dir)
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if err != nil || !rep.RequiredPassed() || (stab.Runs > 1 && !stab.RequiredPassed) {
		return exitFail
	}
	return exitPass
}

func score(c scorecards.Scorecard) string {
	if a, ok := c.Axis(scorecards.AxisCorrectness); ok && a.Score != nil {
		return fmt.Sprintf("%.1f%%", *a.Score*100)
	}
	return "not measured"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func writeScorecard(c scorecards.Scorecard, dir string) (string, error) {
	b, err := c.JSON()
	if err != nil {
		return "", err
	}
	if err := scorecards.Validate(b); err != nil {
		return "", fmt.Errorf("scorecard does not match its schema: %w", err)
	}
	path := filepath.Join(dir, "scorecard.json")
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return "", err
	}
	return path, os.WriteFile(filepath.Join(dir, "scorecard.md"), []byte(c.Markdown()), 0o644)
}

var (
	bars *mpb.Progress
	bar  *mpb.Bar
)

// newProgress reports finished scenarios: a bar on a terminal, else one
// line each.
func newProgress(mode string, total int) func(conform.ScenarioResult) {
	fi, err := os.Stderr.Stat()
	terminal := err == nil && fi.Mode()&os.ModeCharDevice != 0
	if mode == "bar" || (mode == "auto" && terminal) {
		bars = mpb.New(mpb.WithOutput(os.Stderr), mpb.WithWidth(40))
		bar = bars.AddBar(int64(total),
			mpb.PrependDecorators(decor.Name("scenarios "), decor.CountersNoUnit("%d/%d")),
			mpb.AppendDecorators(decor.Percentage(), decor.Name(" "), decor.Elapsed(decor.ET_STYLE_GO)))
		return func(r conform.ScenarioResult) {
			if r.Status == conform.Failed && r.Level != "quirk" {
				_, _ = fmt.Fprintf(bars, "FAIL @%s %s\n", r.Level, r.Name)
			}
			bar.Increment()
		}
	}
	return func(r conform.ScenarioResult) {
		fmt.Fprintf(os.Stderr, "%-14s @%-6s @%-11s %s (%.0f ms)\n", statusLabel(r), r.Level, r.Suite, r.Name, r.DurationMS)
	}
}

// statusLabel names a result; a @quirk scenario describes a defect of the
// original, so "failed" there means the quirk is absent.
func statusLabel(r conform.ScenarioResult) string {
	if r.Level == "quirk" && r.Status != conform.NotApplicable {
		if r.Status == conform.Passed {
			return "QUIRK-PRESENT"
		}
		return "QUIRK-ABSENT"
	}
	return strings.ToUpper(r.Status)
}

func finishProgress() {
	if bars != nil {
		bar.SetTotal(-1, true)
		bars.Wait()
	}
}
