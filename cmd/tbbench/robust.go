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
	"syscall"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/robust"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

func runRobust(args []string) int {
	fs := flag.NewFlagSet("robust", flag.ContinueOnError)
	tf := addTargetFlags(fs)
	var (
		out      = fs.String("out", "out", "`directory` for the run's output directory")
		runID    = fs.String("run-id", "", "name of the run's output directory (default: time, transport and storage, then -robust)")
		critique = fs.Duration("critique-timeout", 0, "the target's critique (sampling) timeout; a thought asking for a critique may take this plus 3 s (default 30s, 2s for the embedded server)")
		noFaults = fs.Bool("no-faults", false, "send the bad inputs only; make no fault (refused or unanswered sampling, unwritable export directory)")
		verbose  = fs.Bool("v", false, "print every input's verdict, not only the failures")
	)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: tbbench robust [flags]

Sends the bad-input catalogue to one target: wrong types, missing and null
fields, 1 and 5 MiB strings, NUL and unpaired surrogates, out-of-range
numbers, path-like ids, 10,000 tags, and below MCP malformed JSON-RPC,
batches, wrong content types, unknown and deleted session ids, bodies at and
over the 4 MiB limit (HTTP targets). Each input must get a clear error
(isError, a JSON-RPC error, or a 4xx with a JSON body) — the body at the
limit a normal answer —, the target must keep answering, and nothing may
change: read back through MCP and, when the data directory is known, hashed
on disk. Then it makes faults: a client that refuses or never answers
sampling, an export directory that cannot be written.

Writes robustness.json and .md, scorecard.json, .md and .html (the
robustness axis) and transcripts/robustness.jsonl under <out>/<run-id>/.

Exit status: 0 when every applicable input and fault passed, 1 when some
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
	if *runID == "" {
		*runID = defaultRunID(spec) + "-robust"
	}
	if *critique == 0 && spec.Kind() == target.KindEmbedded {
		*critique = embedded.CritiqueTimeout
	}
	dir := filepath.Join(*out, *runID)
	rec, err := transcript.Create(filepath.Join(dir, "transcripts", "robustness.jsonl"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitUnreachable
	}
	defer rec.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	tg, err := spec.Open(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitUnreachable
	}
	defer tg.Close()
	info := tg.Info()
	fmt.Fprintf(os.Stderr, "tbbench robust: %s (%s), output %s\n", info.Address, info.Transport, dir)
	results, err := robust.Run(ctx, tg, robust.Options{Recorder: rec, CritiqueTimeout: *critique, NoFaults: *noFaults,
		Progress: func(r robust.Result) {
			if *verbose || (!r.Passed && !r.NotApplicable) {
				fmt.Printf("%-6s %s: %s\n", verdictWord(r), r.Name, r.Detail)
			}
		}})
	if err != nil && results == nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		if errors.Is(err, target.ErrUnreachable) {
			return exitUnreachable
		}
		return exitFail
	}
	card := scorecards.Scorecard{SchemaVersion: scorecards.SchemaVersion, RunID: *runID, StartedAt: start, FinishedAt: time.Now(),
		Target:  scorecards.Target{Name: info.Address, Kind: info.Kind, Address: info.Address, Transport: info.Transport, Storage: info.Storage},
		Harness: scorecards.Harness{Version: version, GoVersion: runtime.Version()}, Machine: scorecards.CurrentMachine(),
		Axes: []scorecards.Axis{robust.Axis(results)}}
	card.Finish()
	if werr := errors.Join(robust.Write(dir, results), writeScorecardOnly(card, dir)); werr != nil {
		fmt.Fprintln(os.Stderr, "tbbench: writing results:", werr)
	}
	passed, failed, na := robust.Tally(results)
	fmt.Printf("robustness: %d passed, %d failed, %d not applicable in %.1f s; results in %s\n", passed, failed, na, time.Since(start).Seconds(), dir)
	if err != nil || failed > 0 {
		return exitFail
	}
	return exitPass
}

func verdictWord(r robust.Result) string {
	switch {
	case r.NotApplicable:
		return "n/a"
	case r.Passed:
		return "ok"
	}
	return "FAILED"
}

// writeScorecardOnly writes scorecard.json, .md and .html after checking the
// schema.
func writeScorecardOnly(c scorecards.Scorecard, dir string) error {
	_, err := writeScorecard(c, dir)
	return err
}
