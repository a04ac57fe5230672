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
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/official"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

func runOfficial(args []string) int {
	fs := flag.NewFlagSet("official", flag.ContinueOnError)
	tf := addTargetFlags(fs)
	rd := addRunDirFlags(fs, "-official")
	var (
		tools     = fs.String("tools", "", "`directory` holding Node 22 and the suite, as `make conformance` fills it (default: .tools here or in the nearest parent, the module root)")
		timeout   = fs.Duration("scenario-timeout", official.DefaultTimeout, "time limit of one scenario")
		revision  = fs.String("revision", "both", "MCP `revision` whose requirement set to run: "+strings.Join(official.Revisions, ", ")+" or both")
		scenarios = fs.String("scenario", "", "comma-separated scenario `names` to judge, one CLI process each (default: every server scenario each revision's requirement set lists, one CLI process per revision)")
		verbose   = fs.Bool("v", false, "print every scenario's verdict, not only the failures")
	)
	fs.StringVar(revision, "era", "both", "MCP wire `era`: the same as --revision, under the name conform, robust and load give it")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: tbbench official [flags]

Runs the official MCP conformance suite (%s, pinned to %s in
the Makefile, with Node 22 from .tools/) against one target, for each MCP
revision (--revision): every server scenario the revision's requirement set
lists (server --requirements <revision>, one CLI process), over Streamable
HTTP, always directly (not through the sidecar). Each revision is reported
on its own. A scenario whose capability the target does not declare in its
initialize result, or whose fixture (a tool, prompt or resource of the
suite's everything server) it does not offer, is not applicable, and so is
a single check that needs such a fixture; over stdio every scenario is, the
suite speaks only HTTP to servers. Scenarios the suite runs but does not
score for a revision (extensions, pending) are reported and do not decide
the exit status.

Writes official.json and .md, junit.xml, scorecard.json and .md (the
conformance axis) and transcripts/official-discovery.jsonl under
<out>/<run-id>/.

Exit status: 0 when every applicable scored scenario passed, 1 when some
failed, 2 when the target could not be reached, the suite is not installed,
a flag is wrong or no scored scenario applied (nothing judged).

Flags:
`, official.Package, official.SuiteVersion)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass
		}
		return exitBadInput
	}
	if err := positiveDuration("scenario-timeout", *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitBadInput
	}
	revisions := official.Revisions
	if *revision != "both" {
		if !slices.Contains(official.Revisions, *revision) {
			fmt.Fprintf(os.Stderr, "tbbench: --era/--revision %q: want %s or both\n", *revision, strings.Join(official.Revisions, ", "))
			return exitBadInput
		}
		revisions = []string{*revision}
	}
	spec := tf.spec()
	// The suite judges the server's own HTTP handling (Host and Origin
	// checks, streams): no proxy in between.
	spec.Direct = true
	if err := spec.Validate(); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitBadInput
	}
	if err := tf.applyIdleTimeout(); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitBadInput
	}
	runID, dir := rd.resolve(spec, "-official")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tl, err := official.FindTools(ctx, *tools)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitBadInput
	}
	var list []official.Scenario
	for _, rev := range revisions {
		rl, err := tl.List(ctx, rev)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tbbench:", err)
			return exitBadInput
		}
		if *scenarios != "" {
			rl = pickScenarios(rl, rev, strings.Split(*scenarios, ","))
		}
		list = append(list, rl...)
	}
	rec, err := transcript.Create(filepath.Join(dir, "transcripts", "official-discovery.jsonl"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitBadInput
	}
	defer rec.Close()

	start := time.Now()
	tg, ok := openTarget(ctx, spec)
	if !ok {
		return exitBadInput
	}
	defer tg.Close()
	info := tg.Info()
	fmt.Fprintf(os.Stderr, "tbbench official: %s %s (Node %s), %d server scenarios against %s (%s), output %s\n",
		official.Package, tl.SuiteVersion, tl.NodeVersion, len(list), info.Address, info.Transport, dir)
	surface, server, err := official.Discover(ctx, tg, rec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		if errors.Is(err, target.ErrUnreachable) {
			return exitBadInput
		}
	}
	if tl.SuiteVersion != official.SuiteVersion {
		fmt.Fprintf(os.Stderr, "tbbench: the installed suite is %s; the requirement map was written for %s\n", tl.SuiteVersion, official.SuiteVersion)
	}
	rep := official.Report{RunID: runID, StartedAt: start, Surface: surface, Requirements: official.Requirements, Revisions: revisions}
	rep.Suite.Package, rep.Suite.Version, rep.Suite.NodeVersion = official.Package, tl.SuiteVersion, tl.NodeVersion
	rep.Target.Kind, rep.Target.Address, rep.Target.Transport, rep.Target.Storage = info.Kind, info.Address, info.Transport, info.Storage
	rep.Target.URL, rep.Target.Server = tg.HTTPBase(), server
	rep.Scenarios, err = official.Run(ctx, official.Options{Tools: tl, URL: tg.HTTPBase(), Surface: surface, Scenarios: list,
		Each: *scenarios != "", Timeout: *timeout, Progress: func(r official.Result) {
			if *verbose || r.Status == official.Failed {
				scored := ""
				if !r.Scored {
					scored = " (not scored: " + r.Category + ")"
				}
				fmt.Printf("%-14s %s %s%s %s\n", strings.ToUpper(r.Status), r.Revision, r.Scenario, scored, firstLine(r.Reason))
			}
		}})
	rep.FinishedAt = time.Now()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
	}
	card := rep.Scorecard(scorecards.Harness{Version: version, GoVersion: runtime.Version()})
	if err != nil {
		card.Gates = append(card.Gates, scorecards.Gate{Name: "the suite ran to its end", Detail: err.Error()})
	}
	card.Finish()
	if werr := errors.Join(rep.Write(dir), writeScorecardOnly(card, dir)); werr != nil {
		fmt.Fprintln(os.Stderr, "tbbench: writing results:", werr)
	}
	for _, rev := range revisions {
		fmt.Printf("official conformance suite %s, requirements of %s: %s\n", tl.SuiteVersion, rev, official.Summary(official.OfRevision(rep.Scenarios, rev)))
	}
	passed, failed, _ := official.Tally(official.ScoredOnly(rep.Scenarios))
	fmt.Printf("in %.1f s; results in %s\n", time.Since(start).Seconds(), dir)
	switch {
	case err != nil || failed > 0:
		return exitFail
	case passed == 0:
		fmt.Fprintln(os.Stderr, "tbbench: no scored scenario of the suite applies to this target: nothing was judged")
		return exitBadInput
	}
	return exitPass
}

// pickScenarios keeps the listed scenarios named in names; a name the
// suite does not list for the revision is judged anyway, as scored (and
// reported by the suite).
func pickScenarios(list []official.Scenario, rev string, names []string) []official.Scenario {
	var out []official.Scenario
	for _, n := range names {
		n = strings.TrimSpace(n)
		s := official.Scenario{Name: n, Revision: rev, Scored: true}
		for _, l := range list {
			if l.Name == n {
				s = l
			}
		}
		if n != "" {
			out = append(out, s)
		}
	}
	return out
}
