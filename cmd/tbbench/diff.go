package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/diff"
	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// runDiff is tbbench diff: the same seeded reasoning sessions against two
// targets, every difference between their ledgers reported.
func runDiff(args []string) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	var (
		a         = fs.String("a", "", "the first target, `SPEC`: "+subjectSpecs)
		b         = fs.String("b", "", "the second target, `SPEC`, as --a")
		sessions  = fs.Int("sessions", 5, "seeded reasoning sessions to play on both")
		seed      = fs.Int64("seed", 1, "the scripts' seed")
		transport = fs.String("transport", "", "`http` or `stdio` for both (default: http for embedded, stdio for cmd:)")
		out       = fs.String("out", "out", "`directory` for the run's output directory")
		runID     = fs.String("run-id", "", "name of the run's output directory (default: time, then -diff)")
	)
	var env multi
	fs.Var(&env, "env", "`K=V` for a cmd: target's environment (repeatable)")
	idle := fs.Duration("http-idle-timeout", target.DefaultHTTPIdleTimeout, "how long an unused connection to an HTTP target is kept; set it below the time the targets keep an idle connection open (Node's HTTP server: 5s)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: tbbench diff --a SPEC --b SPEC [flags]

Plays the same seeded reasoning sessions (the load scripts' thoughts: forward
thoughts, branches, revisions, the closing thought) against two targets, of
any families, each session in a new MCP session on each side, and reports
every difference between the ledgers they keep: the numbers, totals, next
flags and branches each thought's answer gives (where both answers have
them), which thoughts each refuses, and, where both families export a
session, the JSON export's nodes and their links. Each target's family is
detected from tools/list.

SPEC is embedded:fs|memory|sqlite, noop, cmd:COMMAND ({port} a free port, {tmpdir} a new empty directory;
--transport applies) or url:URL.

Writes diff.json and diff.md and transcripts/diff.jsonl under <out>/<run-id>/.

Exit status: 0 when the ledgers agree, 1 when they differ, 2 on bad flags or
a target that could not be started or reached.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	bad := func(err error) int {
		fmt.Fprintln(os.Stderr, "tbbench diff:", err)
		return 2
	}
	if *sessions < 1 {
		return bad(fmt.Errorf("--sessions %d: want at least 1", *sessions))
	}
	if *transport != "" && *transport != target.HTTP && *transport != target.Stdio {
		return bad(fmt.Errorf("--transport %q: want http or stdio", *transport))
	}
	tf := &targetFlags{transport: *transport, env: env, storage: "memory", idle: *idle}
	if err := tf.applyIdleTimeout(); err != nil {
		return bad(err)
	}
	base := tf.spec()
	var sides []diff.Side
	var specs []targetspec.Spec
	for _, f := range []struct{ name, value string }{{"a", *a}, {"b", *b}} {
		if f.value == "" {
			return bad(fmt.Errorf("--%s is required: the %s target, SPEC one of %s", f.name, map[string]string{"a": "first", "b": "second"}[f.name], subjectSpecs))
		}
		spec, err := parseSpec(f.value, base, *transport != "")
		if err != nil {
			return bad(fmt.Errorf("--%s %q: %w", f.name, f.value, err))
		}
		sides = append(sides, diff.Side{Label: f.name})
		specs = append(specs, spec)
	}
	defer func() {
		for _, s := range sides {
			if s.Target != nil {
				s.Target.Close()
			}
		}
	}()
	if *runID == "" {
		*runID = time.Now().UTC().Format("20060102-150405") + "-diff"
	}
	dir := filepath.Join(*out, *runID)
	rec, err := transcript.Create(filepath.Join(dir, "transcripts", "diff.jsonl"))
	if err != nil {
		return bad(err)
	}
	defer rec.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for i := range sides {
		tg, err := specs[i].Open(ctx)
		if err != nil {
			return bad(fmt.Errorf("--%s: %w", sides[i].Label, err))
		}
		sides[i].Target = tg
	}
	rep, err := diff.Run(ctx, sides[0], sides[1], diff.Options{Sessions: *sessions, Seed: *seed, Nonce: fmt.Sprintf("d%d", *seed), Recorder: rec})
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench diff:", err)
		if errors.Is(err, target.ErrUnreachable) || errors.Is(err, profile.ErrUndetected) {
			return 2
		}
		return 1
	}
	if err := rep.Write(dir); err != nil {
		return bad(err)
	}
	fmt.Printf("tbbench diff: %s (%s) against %s (%s): %d sessions, %d thoughts each, %d comparisons, %d differences; results in %s\n",
		sides[0].Label, rep.A.Profile, sides[1].Label, rep.B.Profile, rep.Sessions, rep.Thoughts, rep.Checks, len(rep.Differences), dir)
	if len(rep.Differences) > 0 {
		return 1
	}
	return 0
}
