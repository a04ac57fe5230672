package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/robust"
	"github.com/thoughtbox-bench/tbbench/harness/security"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

func runRobust(args []string) int {
	fs := flag.NewFlagSet("robust", flag.ContinueOnError)
	tf := addTargetFlags(fs)
	rd := addRunDirFlags(fs, "-robust")
	var (
		critique = fs.Duration("critique-timeout", 0, "the target's critique (sampling) timeout; a thought asking for a critique may take this plus 3 s (default 30s, 2s for the embedded server)")
		noFaults = fs.Bool("no-faults", false, "send the bad inputs only; make no fault (refused or unanswered sampling, unwritable export directory)")
		noSec    = fs.Bool("no-security", false, "leave out the security checks")
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
sampling, an export directory that cannot be written. Then the security
checks: Host and Origin validation, the bind address, path traversal, the
body limit, request content (canaries) kept out of a sidecar's metrics,
logs and traces, label cardinality under random names.

Writes robustness.json and .md, security.json, scorecard.json, .md and .html (the
robustness and security axes) and transcripts/robustness.jsonl under
<out>/<run-id>/.

Exit status: 0 when every applicable input, fault and security check
passed, 1 when some failed, 2 when the target could not be started or
reached.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass
		}
		return exitBadInput
	}
	spec := tf.spec()
	if err := spec.Validate(); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitBadInput
	}
	prof, err := tf.family()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitBadInput
	}
	runID, dir := rd.resolve(spec, "-robust")
	if *critique == 0 && spec.Kind() == target.KindEmbedded {
		*critique = embedded.CritiqueTimeout
	}
	rec, err := transcript.Create(filepath.Join(dir, "transcripts", "robustness.jsonl"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitBadInput
	}
	defer rec.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	tg, err := spec.Open(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitBadInput
	}
	defer tg.Close()
	info := tg.Info()
	fmt.Fprintf(os.Stderr, "tbbench robust: %s (%s), output %s\n", info.Address, info.Transport, dir)
	var family string
	results, err := robust.Run(ctx, tg, robust.Options{Recorder: rec, CritiqueTimeout: *critique, NoFaults: *noFaults, Profile: prof,
		Family: func(name string) {
			family = name
			fmt.Fprintf(os.Stderr, "tbbench robust: profile %s\n", name)
		},
		Progress: func(r robust.Result) {
			if *verbose || (!r.Passed && !r.NotApplicable) {
				fmt.Printf("%-6s %s: %s\n", verdictWord(r), r.Name, r.Detail)
			}
		}})
	if err != nil && results == nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		if errors.Is(err, target.ErrUnreachable) || errors.Is(err, profile.ErrUndetected) {
			return exitBadInput
		}
		return exitFail
	}
	axes := []scorecards.Axis{robust.Axis(results)}
	var secFailed int
	if !*noSec {
		fp := prof
		if fp == nil {
			fp, _ = profile.ByName(family)
		}
		sec := security.Run(ctx, tg, rec, fp)
		for _, r := range sec {
			if !r.Passed && !r.NotApplicable {
				secFailed++
			}
			if *verbose || (!r.Passed && !r.NotApplicable) {
				fmt.Printf("%-6s security/%s: %s\n", map[bool]string{true: "ok", false: "FAILED"}[r.Passed || r.NotApplicable], r.Name, r.Detail)
			}
		}
		axes = append(axes, security.Axis(sec))
		if werr := writeJSON(filepath.Join(dir, "security.json"), map[string]any{"results": sec}); werr != nil {
			fmt.Fprintln(os.Stderr, "tbbench: writing results:", werr)
		}
	}
	card := scorecards.Scorecard{SchemaVersion: scorecards.SchemaVersion, RunID: runID, StartedAt: start, FinishedAt: time.Now(),
		Target: scorecards.Target{Name: info.Address, Kind: info.Kind, Address: info.Address, Transport: info.Transport, Storage: info.Storage,
			Profile: family},
		Harness: scorecards.Harness{Version: version, GoVersion: runtime.Version()}, Machine: scorecards.CurrentMachine(),
		Axes: axes}
	card.Finish()
	if werr := errors.Join(robust.Write(dir, results), writeScorecardOnly(card, dir)); werr != nil {
		fmt.Fprintln(os.Stderr, "tbbench: writing results:", werr)
	}
	passed, failed, na := robust.Tally(results)
	fmt.Printf("robustness: %d passed, %d failed, %d not applicable; security: %d failed; %.1f s; results in %s\n", passed, failed, na, secFailed, time.Since(start).Seconds(), dir)
	if err != nil || failed > 0 || secFailed > 0 {
		return exitFail
	}
	return exitPass
}

// writeJSON writes v indented to path.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
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
