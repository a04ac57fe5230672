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

// robustInputs, when set, chooses the inputs a robust run sends from the
// whole catalogue (tests send a few); nil sends the family's catalogue.
var robustInputs func([]robust.Input) []robust.Input

func runRobust(args []string) int {
	fs := flag.NewFlagSet("robust", flag.ContinueOnError)
	tf := addTargetFlags(fs)
	rd := addRunDirFlags(fs, "-robust")
	var (
		critique = fs.Duration("critique-timeout", 0, "the target's critique (sampling) timeout; a thought asking for a critique may take this plus 3 s (default 30s, 2s for the embedded server)")
		noFaults = fs.Bool("no-faults", false, "send the bad inputs only; make no fault (refused or unanswered sampling, unwritable export directory)")
		noSec    = fs.Bool("no-security", false, "leave out the security checks")
		verbose  = fs.Bool("v", false, "print every input's verdict, not only the failures")
		eraFlag  = fs.String("era", "", "MCP wire `era` the catalogue speaks: 2025-11-25, 2026-07-28 or both (default: every era the target speaks)")
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

Each MCP wire era runs the catalogue with every connection speaking it
(--era; by default every era the target speaks, found by asking each):
2025-11-25 with initialize and an MCP session per connection, 2026-07-28
without sessions, each connection carrying the context its start_new
names. The session-id inputs are the 2025 era's only. The 2026 era adds
its own: a _meta protocol version missing, null, of the wrong type or one
the server does not speak; Mcp-Protocol-Version, Mcp-Method and Mcp-Name
headers that disagree with the body or are missing (HTTP only: stdio has
no headers); contextIds no server issued (unknown, of the wrong type, not
32 hex digits); requestStates tampered with, cut short, made up, or sent
on another context or call than the one they were issued for (the set-up
leaves a thought asking for a critique open to get a real one); and
inputResponses on calls that asked for nothing, which may be ignored or
refused but must change nothing. An input of the other era only is not
applicable, with the reason. In the 2026 era the faults' clients that
refuse or never answer sampling are clients that never retry the
thought's input_required answer.

With more than one era each era writes its robustness.json and .md,
scorecard and transcripts/robustness.jsonl under
<out>/<run-id>/era-<version>/; the run directory holds security.json,
transcripts/security.jsonl and one scorecard of the eras (the robustness
axis the worst era's). An era the target does not speak is reported not
applicable, with the reason, never passed or failed.

The last line printed is "robustness: N passed, N failed, N not
applicable; security: N failed; T s; results in DIR", summed over the eras.

Exit status: 0 when every applicable input, fault and security check
passed in every era judged, 1 when some failed, 2 when the target could
not be started or reached, or speaks none of the eras asked for (also one
era asked for by name that it does not speak).

Flags:
`)
		fs.PrintDefaults()
	}
	parsed, code, ok := tf.parse(fs, args, eraFlag)
	if !ok {
		return code
	}
	if *critique < 0 {
		fmt.Fprintf(os.Stderr, "tbbench: --critique-timeout must not be negative, not %s\n", *critique)
		return exitBadInput
	}
	eras, explicit, spec, prof := parsed.eras, parsed.explicit, parsed.spec, parsed.family
	runID, dir := rd.resolve(spec, "-robust")
	if *critique == 0 && spec.Kind() == target.KindEmbedded {
		*critique = embedded.CritiqueTimeout
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitBadInput
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	tg, ok := openTarget(ctx, spec)
	if !ok {
		return exitBadInput
	}
	defer tg.Close()
	info := tg.Info()
	fmt.Fprintf(os.Stderr, "tbbench robust: %s (%s), output %s\n", info.Address, info.Transport, dir)
	var family string
	o := robust.Options{CritiqueTimeout: *critique, NoFaults: *noFaults, Profile: prof,
		Family: func(name string) {
			if family == "" {
				fmt.Fprintf(os.Stderr, "tbbench robust: profile %s\n", name)
			}
			family = name
		}}

	code, judged := exitPass, 0
	var all []robust.Result
	var cards []scorecards.Scorecard
	var robustAxis scorecards.Axis  // the last era's
	var secRec *transcript.Recorder // the transcript the security checks go to
	var recs []*transcript.Recorder
	defer func() {
		for _, r := range recs {
			r.Close()
		}
	}()
	for _, era := range eras {
		eraDir := eraDirOf(dir, era, len(eras))
		fmt.Fprintf(os.Stderr, "tbbench robust: era %s\n", era)
		o.Era = era
		if robustInputs != nil {
			o.Inputs = robustInputs(robust.Catalogue())
		}
		o.Progress = func(r robust.Result) {
			if *verbose || (!r.Passed && !r.NotApplicable) {
				name := r.Name
				if len(eras) > 1 {
					name = string(era) + " " + name
				}
				fmt.Printf("%-6s %s: %s\n", verdictWord(r), name, r.Detail)
			}
		}
		c, results, rec := robustEra(ctx, tg, o, eraDir, explicit && len(eras) == 1)
		if rec != nil {
			recs = append(recs, rec)
			if len(eras) == 1 {
				secRec = rec // one era: the security checks share its transcript
			}
		}
		switch c {
		case exitNotApplicable:
			continue
		case exitPass:
			judged++
		default:
			judged++
			if code == exitPass || c == exitBadInput {
				code = c
			}
		}
		if results == nil {
			continue
		}
		all = append(all, results...)
		robustAxis = robust.Axis(results)
		card := robustCard(runID, info, family, start, ctx.Err(), []scorecards.Axis{robustAxis})
		if len(eras) > 1 {
			card.RunID = filepath.Base(dir) + " era " + string(era)
			if werr := writeScorecardOnly(card, eraDir); werr != nil {
				fmt.Fprintln(os.Stderr, "tbbench: writing results:", werr)
			}
			p, f, na := robust.Tally(results)
			fmt.Printf("era %s: robustness: %d passed, %d failed, %d not applicable; results in %s\n", era, p, f, na, eraDir)
		}
		cards = append(cards, card)
	}
	if judged == 0 && code == exitPass {
		fmt.Fprintln(os.Stderr, "tbbench: the target speaks none of the eras asked for: nothing was judged")
		return exitBadInput
	}
	if len(cards) == 0 {
		return code // no era got as far as its results
	}
	var secFailed int
	var secAxes []scorecards.Axis
	if !*noSec {
		fp := prof
		if fp == nil {
			fp, _ = profile.ByName(family)
		}
		if secRec == nil {
			var err error
			if secRec, err = transcript.Create(filepath.Join(dir, "transcripts", "security.jsonl")); err != nil {
				fmt.Fprintln(os.Stderr, "tbbench:", err)
				return exitBadInput
			}
			recs = append(recs, secRec)
		}
		sec := security.Run(ctx, tg, secRec, fp)
		for _, r := range sec {
			if !r.Passed && !r.NotApplicable {
				secFailed++
			}
			if *verbose || (!r.Passed && !r.NotApplicable) {
				fmt.Printf("%-6s security/%s: %s\n", map[bool]string{true: "ok", false: "FAILED"}[r.Passed || r.NotApplicable], r.Name, r.Detail)
			}
		}
		secAxes = append(secAxes, security.Axis(sec))
		if werr := writeJSON(filepath.Join(dir, "security.json"), map[string]any{"results": sec}); werr != nil {
			fmt.Fprintln(os.Stderr, "tbbench: writing results:", werr)
		}
	}
	axes := []scorecards.Axis{robustAxis}
	if len(cards) > 1 {
		// One scorecard of the eras, in the run directory: the robustness
		// axis is the worst era's, its checks named after their era.
		axes = nil
		for _, a := range scorecards.Combine(runID, cards).Axes {
			if a.Measured() {
				axes = append(axes, a)
			}
		}
	}
	card := robustCard(runID, info, family, start, ctx.Err(), append(axes, secAxes...))
	if werr := writeScorecardOnly(card, dir); werr != nil {
		fmt.Fprintln(os.Stderr, "tbbench: writing results:", werr)
	}
	passed, failed, na := robust.Tally(all)
	fmt.Printf("robustness: %d passed, %d failed, %d not applicable; security: %d failed; %.1f s; results in %s\n", passed, failed, na, secFailed, time.Since(start).Seconds(), dir)
	if code == exitPass && (failed > 0 || secFailed > 0) {
		code = exitFail
	}
	return code
}

// robustEra runs the catalogue in one era (o.Era) and writes its results
// into dir; it returns the era's exit status (exitNotApplicable when the
// target does not speak it, unless it was asked for by name alone), its
// results (nil when none were judged) and its transcript.
func robustEra(ctx context.Context, tg target.Target, o robust.Options, dir string, explicit bool) (int, []robust.Result, *transcript.Recorder) {
	rec, err := transcript.Create(filepath.Join(dir, "transcripts", "robustness.jsonl"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		return exitBadInput, nil, nil
	}
	o.Recorder = rec
	results, err := robust.Run(ctx, tg, o)
	if errors.Is(err, target.ErrEraNotSpoken) {
		msg := fmt.Sprintf("era %s not applicable: %v", o.Era, err)
		fmt.Println(msg)
		_ = os.WriteFile(filepath.Join(dir, "robustness.md"), []byte("# Robustness: "+msg+"\n"), 0o644)
		_ = writeJSON(filepath.Join(dir, "robustness.json"), map[string]any{"era": o.Era, "notApplicable": msg, "results": []robust.Result{}})
		if explicit {
			return exitBadInput, nil, rec
		}
		return exitNotApplicable, nil, rec
	}
	if err != nil && results == nil {
		fmt.Fprintln(os.Stderr, "tbbench:", err)
		if errors.Is(err, target.ErrUnreachable) || errors.Is(err, profile.ErrUndetected) {
			return exitBadInput, nil, rec
		}
		return exitFail, nil, rec
	}
	if werr := robust.Write(dir, results); werr != nil {
		fmt.Fprintln(os.Stderr, "tbbench: writing results:", werr)
	}
	if _, failed, _ := robust.Tally(results); err != nil || failed > 0 {
		return exitFail, results, rec
	}
	return exitPass, results, rec
}

// robustCard is the scorecard of a robust run with the axes given, and the
// run's gate; interrupted, when not nil, is why the run stopped before the
// end of the catalogue, which fails it.
func robustCard(runID string, info target.Info, family string, start time.Time, interrupted error, axes []scorecards.Axis) scorecards.Scorecard {
	card := scorecards.Scorecard{SchemaVersion: scorecards.SchemaVersion, RunID: runID, StartedAt: start, FinishedAt: time.Now(),
		Target: scorecards.Target{Name: info.Address, Kind: info.Kind, Address: info.Address, Transport: info.Transport, Storage: info.Storage,
			Profile: family},
		Harness: scorecards.Harness{Version: version, GoVersion: runtime.Version()}, Machine: scorecards.CurrentMachine(),
		Axes: axes}
	for _, a := range axes {
		if a.Name == scorecards.AxisRobustness {
			card.Gates = append(card.Gates, scorecards.ChecksGate(robust.Gate, a))
		}
	}
	if interrupted != nil {
		card.Gates = append(card.Gates, scorecards.Gate{Name: "the catalogue ran to its end", Detail: interrupted.Error()})
	}
	card.Finish()
	return card
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
