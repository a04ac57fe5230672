package main

import (
	"cmp"
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
	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// Exit statuses of tbbench conform.
const (
	// exitPass: every scenario of the required levels passed and the
	// sidecar's counts agree with the harness's.
	exitPass = 0
	// exitFail: the verdict is fail.
	exitFail = 1
	// exitBadInput: bad flags, feature files whose tags break the rules, a
	// tag expression that selects no required scenario, or a target that
	// could not be started or reached; nothing was judged.
	exitBadInput = 2
)

func runConform(args []string) int {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	tf := addTargetFlags(fs)
	fs.BoolVar(&tf.observatory, "observatory", true, "start the embedded server with its Observatory on, so the @observatory scenarios apply")
	rd := addRunDirFlags(fs, "")
	var (
		require     = fs.String("require", "", "comma-separated `levels` that must pass (default core,intent for the embedded server, core otherwise)")
		concurrency = fs.Int("concurrency", 4, "scenarios run at once")
		tags        = fs.String("tags", "", "godog tag `expression` selecting scenarios, e.g. \"@ledger && ~@quirk\"")
		progress    = fs.String("progress", "auto", "`auto`, bar or lines")
		repeat      = fs.Int("repeat", 1, "run the scenarios `k` times against the same target; a scenario whose result changes is flaky (the stability axis, pass^k)")
		eraFlag     = fs.String("era", "", "MCP wire `era` the scenarios speak: 2025-11-25, 2026-07-28 or both (default: every era the target speaks)")
	)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: tbbench conform [flags]

Runs every scenario of the embedded feature files against one target and
writes, under <out>/<run-id>/: conformance.json and .md, junit.xml,
cucumber.json, scorecard.json, .md and .html, one JSONL transcript per
scenario, and with --repeat k > 1 stability.json and .md (the runs after the
first under repeats/).
Target: the embedded reference server (default), --url, or --command. The
traffic goes through an mcp-sidecar proxy started in this process (unless
--direct); its counts per method, tool, operation and status must equal the
harness's own (the scorecard's observability axis, and a gate).

The target's family (profile) is detected from tools/list: gateway
(thoughtbox_gateway), code-mode (thoughtbox_execute) or sequential-thinking
(sequentialthinking); --profile names it instead. Scenarios written for
another family, and scenarios needing what the family lacks, are not
applicable, with the reason.

Every scenario must carry exactly one level tag (@core, @intent, @quirk) and
one suite tag; the feature files and --tags are checked before the target
starts. A --tags expression must name known tags and select at least one
scenario of a required level.

The last line printed is "N passed, N failed, N informational (quirk)":
@quirk results are information, never failures.

Each MCP wire era runs the scenarios that apply to it (--era; by default
every era the target speaks, found by asking each): 2025-11-25 with
initialize and an MCP session per connection, 2026-07-28 without sessions,
each connection carrying the context its start_new names. Scenarios of one
era's own rules are not applicable in the other. With more than one era
each writes its results under <out>/<run-id>/era-<version>/; an era the
target does not speak is reported not applicable, with the reason.

Exit status: 0 when every scenario of the required levels passed and the
sidecar's counts per method, tool, operation and status agree with the
harness's; 1 when the verdict is fail (a required scenario failed, or the
counts differ); 2 when nothing was judged: bad flags, feature files or --tags
(see above), no selected required scenario applicable to the target, or a
target that could not be started or reached.

Flags:
`)
		fs.PrintDefaults()
	}
	parsed, code, ok := tf.parse(fs, args, eraFlag)
	if !ok {
		return code
	}
	if err := cmp.Or(progressMode(*progress), atLeastOne("concurrency", *concurrency), atLeastOne("repeat", *repeat)); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitBadInput
	}
	eras, explicit, spec, family := parsed.eras, parsed.explicit, parsed.spec, parsed.family
	kind := spec.Kind()
	required := []string{"core"}
	if kind == target.KindEmbedded {
		required = []string{"core", "intent"}
	}
	if *require != "" {
		required = strings.Split(*require, ",")
	}
	// The feature files and the selection are checked before the target
	// is started: a mistyped tag is the user's to fix, not the server's.
	sel, err := conform.LoadFeatures(features.FS, *tags, required)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		fmt.Println(noResults)
		return exitBadInput
	}
	_, dir := rd.resolve(spec, "")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitBadInput
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tg, ok := openTarget(ctx, spec)
	if !ok {
		fmt.Println(noResults)
		return exitBadInput
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

	code, judged := exitPass, 0
	var cards []scorecards.Scorecard
	var eraChecks []scorecards.Check
	var reps []conform.Report
	for _, era := range eras {
		eraDir := eraDirOf(dir, era, len(eras))
		fmt.Fprintf(os.Stderr, "tbbench conform: era %s\n", era)
		c, card, rep, why := conformEra(ctx, tg, conform.Options{Target: tg, OutDir: eraDir, Required: required, Concurrency: *concurrency,
			Tags: *tags, Progress: newProgress(*progress, sel.Selected), Profile: family, Era: era}, *repeat, time.Now(), explicit && len(eras) == 1)
		if rep != nil && c != exitNotApplicable {
			reps = append(reps, *rep)
		}
		if card != nil && c != exitNotApplicable {
			card.RunID = filepath.Base(dir) + " era " + string(era)
			cards = append(cards, *card)
			detail := "not measured"
			if a, ok := card.Axis(scorecards.AxisCorrectness); ok && a.Score != nil {
				detail = fmt.Sprintf("%.1f%%, verdict %s", *a.Score*100, card.Verdict)
			}
			eraChecks = append(eraChecks, scorecards.Check{Name: "era " + string(era), Passed: card.Verdict == scorecards.VerdictPass, Detail: detail})
		} else if c == exitNotApplicable {
			eraChecks = append(eraChecks, scorecards.Check{Name: "era " + string(era), Passed: true, Detail: "not applicable: " + why})
		}
		switch c {
		case exitNotApplicable:
		case exitPass:
			judged++
		default:
			judged++
			if code == exitPass || c == exitBadInput {
				code = c
			}
		}
	}
	if judged == 0 && code == exitPass {
		fmt.Fprintln(os.Stderr, "tbbench: no selected scenario of a required level applies to this target: nothing was judged (in no era asked for: the target speaks none of them, or nothing selected applies in them)")
		return exitBadInput
	}
	if len(eras) > 1 && len(cards) > 0 {
		// One scorecard of the eras, in the run directory (where make run's
		// load --with reads it); the correctness axis says how each did.
		card := scorecards.Combine(filepath.Base(dir), cards)
		for i := range card.Axes {
			if card.Axes[i].Name == scorecards.AxisCorrectness {
				card.Axes[i].Checks = append(card.Axes[i].Checks, eraChecks...)
			}
		}
		if _, err := writeScorecard(card, dir); err != nil {
			fmt.Fprintln(os.Stderr, "tbbench: writing the eras' scorecard:", err)
		}
		if err := conform.WriteEras(dir, filepath.Base(dir), reps); err != nil {
			fmt.Fprintln(os.Stderr, "tbbench: writing the eras' results:", err)
		}
		fmt.Println()
		var total conform.Totals
		for _, c := range eraChecks {
			fmt.Printf("%s: %s\n", c.Name, c.Detail)
		}
		for _, r := range reps {
			total = total.Plus(r.Totals())
		}
		fmt.Println(total) // the last line, as with one era
	}
	return code
}

// exitNotApplicable is conformEra's answer for an era the target does not
// speak, or in which no selected scenario applies (never an exit status);
// conformEra says which.
const exitNotApplicable = -1

// conformEra runs the scenarios in one era and reports them; it returns the
// era's exit status, or exitNotApplicable when the target does not speak
// it (an error when the era was asked for by name), with the reason.
func conformEra(ctx context.Context, tg target.Target, o conform.Options, repeat int, start time.Time, explicit bool) (int, *scorecards.Scorecard, *conform.Report, string) {
	dir, required := o.OutDir, o.Required
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitBadInput, nil, nil, ""
	}
	rep, stab, err := conform.Repeat(ctx, o, repeat, repeatDone(repeat))
	finishProgress()
	if errors.Is(err, target.ErrEraNotSpoken) {
		msg := fmt.Sprintf("era %s not applicable: %v", o.Era, err)
		fmt.Println(msg)
		_ = os.WriteFile(filepath.Join(dir, "conformance.md"), []byte("# Conformance: "+msg+"\n"), 0o644)
		if explicit {
			return exitBadInput, nil, nil, ""
		}
		return exitNotApplicable, nil, nil, err.Error()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		fmt.Println(noResults)
		if errors.Is(err, target.ErrUnreachable) || errors.Is(err, conform.ErrFeatures) || errors.Is(err, conform.ErrSelection) ||
			errors.Is(err, profile.ErrUndetected) {
			return exitBadInput, nil, nil, ""
		}
		return exitFail, nil, nil, ""
	}
	how := "given with --profile"
	if rep.Target.ProfileDetected {
		how = "detected from tools/list"
	}
	fmt.Fprintf(os.Stderr, "tbbench conform: profile %s (%s)\n", rep.Target.Profile, how)
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
	t := rep.Totals()
	fmt.Printf("\n%-8s %7s %7s %s\n", "level", "passed", "failed", "")
	for _, l := range rep.Levels {
		switch {
		case l.Level == scorecards.Quirk:
			fmt.Printf("%-8s %7s %7s informational: %d quirks present, %d absent\n", l.Level, "-", "-", l.Passed, l.Failed)
		case l.Required:
			fmt.Printf("%-8s %7d %7d required\n", l.Level, l.Passed, l.Failed)
		default:
			fmt.Printf("%-8s %7d %7d not required\n", l.Level, l.Passed, l.Failed)
		}
	}
	for _, s := range rep.Scenarios {
		if s.Status == conform.Failed && !s.Informational() {
			fmt.Printf("FAILED @%s %s / %s\n  %s\n  transcript: %s\n", s.Level, s.Feature, s.Name,
				firstLine(s.Failure), s.Transcript)
		}
	}
	if t.NotApplicable > 0 {
		fmt.Printf("%d scenarios not applicable to this target\n", t.NotApplicable)
	}
	printStability(stab)
	if a, ok := card.Axis(scorecards.AxisObservability); ok && a.Score != nil {
		fmt.Printf("observability %.1f%%: %s\n", *a.Score*100, a.Summary)
	}
	if !rep.CountsAgree() {
		fmt.Println("FAILED the sidecar's counts differ from the harness's (a gate): see the observability checks in scorecard.json")
	}
	fmt.Printf("verdict %s, correctness %s, %d scenarios in %.1f s; results in %s\n", card.Verdict,
		score(card), len(rep.Scenarios), time.Since(start).Seconds(), dir)
	fmt.Println(t)
	if judged := judgedRequired(rep); judged == 0 {
		fmt.Fprintf(os.Stderr, "tbbench: no selected scenario of a required level (%s) applies to this target in era %s: nothing was judged\n",
			strings.Join(required, ","), o.Era)
		if explicit {
			return exitBadInput, &card, &rep, ""
		}
		return exitNotApplicable, &card, &rep, "no selected scenario of a required level (" + strings.Join(required, ",") + ") applies to this target in it"
	}
	if card.Verdict != scorecards.VerdictPass || (stab.Runs > 1 && !stab.RequiredPassed) {
		return exitFail, &card, &rep, ""
	}
	return exitPass, &card, &rep, ""
}

// judgedRequired counts the scenarios of required levels that ran (passed
// or failed).
func judgedRequired(rep conform.Report) int {
	n := 0
	for _, l := range rep.Levels {
		if l.Required && l.Level != scorecards.Quirk {
			n += l.Passed + l.Failed
		}
	}
	return n
}

// noResults is the last line of a run that judged nothing.
const noResults = "0 passed, 0 failed, 0 informational (quirk)"

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
	return path, writeScorecardViews(c, dir)
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
			if r.Status == conform.Failed && !r.Informational() {
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
