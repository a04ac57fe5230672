package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/thoughtbox-bench/tbbench/harness/load"
	"github.com/thoughtbox-bench/tbbench/harness/load/pace"
	"github.com/thoughtbox-bench/tbbench/harness/load/segment"
	"github.com/thoughtbox-bench/tbbench/harness/load/threshold"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/promwatch"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// Exit statuses of tbbench load.
const (
	exitLoadPass       = 0
	exitLoadFail       = 1 // thoughts lost, answered without an acknowledgement, or a phase aborted
	exitLoadBadInput   = 2 // bad flags or workload, or an unreachable target
	exitLoadThresholds = threshold.ExitThresholds
	// exitLoadInconclusive: the run could not tell (the no-op ceiling could
	// not hold the tier, a relative threshold's interval straddled its
	// limit, or a phase got no thought call answered): neither pass nor
	// fail.
	exitLoadInconclusive = 3
)

func runLoad(args []string) int {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	tf := addTargetFlags(fs)
	var (
		tier      = fs.String("tier", workload.Smoke, "the `tier`: "+strings.Join(workload.TierNames, ", "))
		file      = fs.String("workload", "", "workload `file` (YAML or JSON; default: the built-in workload, see --print-workload)")
		printWL   = fs.Bool("print-workload", false, "print the default workload as YAML and exit")
		seed      = fs.Int64("seed", 1, "seed of the virtual users' scripts: the same seed sends the same calls")
		seg       = fs.String("segment", "1/1", "this process's share `i/n` of the load (k6 execution segments; merge with tbbench merge)")
		compare   = fs.String("compare-storage", "", "comma-separated storage `modes` of the embedded server measured in interleaved rounds (e.g. fs,memory)")
		users     = fs.Int("users", 0, "`n` virtual users (MCP sessions) for a closed tier such as smoke, instead of the workload's (e.g. --users 8 with --compare-observatory, whose figure is set at 8 sessions)")
		rounds    = fs.Int("rounds", 0, "`n` rounds of a smoke, regression or soak tier instead of the workload's (comparisons get confidence intervals from 6)")
		compareOb = fs.Bool("compare-observatory", false, "measure the embedded server with its Observatory off and on in interleaved rounds: the throughput it costs, and during the \"on\" rounds the delivery of thought:added to 100 WebSocket clients (p50/p99)")
		ceiling   = fs.Bool("ceiling", true, "also measure the built-in no-op MCP server, the ceiling of this client, transport and machine (in the 2025-11-25 era whatever --era says: the 2026 no-op costs more per call than the reference server)")
		tgt       = fs.String("target", "", "`noop` measures only the built-in no-op server")
		inProcess = fs.Bool("in-process", false, "run the embedded and no-op servers in this process instead of as child processes (no server CPU/RSS figures)")
		out       = fs.String("out", "out", "`directory` for the run's output directory")
		runID     = fs.String("run-id", "", "name of the run's output directory (default: time and tier)")
		progress  = fs.String("progress", "auto", "`auto`, bar or lines")
		timeout   = fs.Duration("call-timeout", 10*time.Second, "longest wait for one call")
		realTime  = fs.String("realtime-pacer", "off", "`off`, auto or on: with auto or on the open tiers' scheduler waits for each arrival on a thread of its own at a real-time priority (Linux, SCHED_FIFO 1; needs root or CAP_SYS_NICE), so that arrivals start on time on cores shared with the server, at some cost to the server's latency there (README: figures); auto falls back to an ordinary priority where that is refused, on refuses to start, and load.md says which")
		cpuProf   = fs.String("cpuprofile", "", "write this process's CPU profile (client, sidecar, verification) to `file`; "+target.ProfileEnv+"=PREFIX in the environment makes each child server write its own to PREFIX.<pid>.pprof")
		promBin   = fs.String("prometheus", "auto", "`auto`, off, or the prometheus executable: a real Prometheus scrapes the sidecars during the load, then every dashboard panel query and alert rule must return data (the observability axis; auto uses prometheus on PATH and, without it, notes the check as not applicable)")
		baseline  = fs.String("baseline", "", "the `NAME` of the --subject the others are judged against by ratio{vs:baseline} thresholds (default: the first --subject; with --compare-storage, none unless named)")
		baseBuild = fs.String("base-build", "", "`path` of another build's thoughtbox command (make ab builds one from a commit): every embedded subject is measured on it too, as MODE-base, in the same rounds and with the same settings, and judged against it (ratio{vs:baseline}, in load.md: this build ÷ that one)")
		eraFlag   = fs.String("era", "", "MCP wire `era` of the load: 2025-11-25 (default), 2026-07-28, or both (every subject measured in each era, labelled NAME@ERA, in the same interleaved rounds); a --subject's SPEC@ERA names its own")
		with      multi
		subjectFl multi
	)
	fs.Var(&subjectFl, "subject", "`NAME=SPEC`: a subject measured in the same interleaved rounds as the others (repeatable), SPEC one of "+subjectSpecs+" (COMMAND as --command: words split on spaces, {port} a free port, {tmpdir} a new empty directory of the subject's own, --transport applies, default stdio); the no-op ceiling is added when every subject speaks HTTP")
	fs.Var(&with, "with", "`run directory` of an earlier tbbench run (e.g. conform) whose scorecard joins this run's in one scorecard.json (repeatable)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: tbbench load [flags]

Sends MCP load to a target and measures it. Virtual users each hold one MCP
session and live scripted reasoning sessions (start_new, cipher, thoughts with
branches and revisions, reads, session list/get, a closing thought, DELETE).
Open tiers send calls at a fixed arrival rate from a pool of users (an arrival
that finds every user busy is dropped and counted; latency is measured from
the scheduled time); closed tiers run a fixed number of users back to back.
Every call is recorded in HDR histograms by operation and outcome class, and
after the load every acknowledged thought is read back.

Subjects: --subject NAME=SPEC (repeatable) names each server the run
measures, e.g. two builds of one server:

  tbbench load --tier regression --transport http \
    --subject base=cmd:"base/thoughtbox --port {port} --data-dir {tmpdir}" \
    --subject head=cmd:"head/thoughtbox --port {port} --data-dir {tmpdir}" --baseline base

({tmpdir} is a new empty directory of each subject's own, removed after the
run: without it both builds would keep their data in ~/.thoughtbox.)

Every subject runs in the same rounds, its order rotated each round, beside
the no-op ceiling. load.md gives each subject's ratios to the baseline and to
the ceiling, paired round by round, with 95 % confidence intervals: service
time (send to answer), throughput, and for servers run as child processes
their CPU time per call and RSS. --compare-storage fs,memory,sqlite is
shorthand for one embedded subject per storage mode. --base-build PATH
measures another build of the reference server (its thoughtbox command)
beside every embedded subject, as MODE-base, and judges each subject
against it in its own mode and era (make ab BASE=<commit> builds one and
runs the A/B).

Thresholds may be relative (the ratio metric): ratio{op:thought,vs:ceiling}:
p(50)<4, ratio{vs:baseline}: cpu_per_call<1.05. A relative threshold fails
only when its whole confidence interval is past the limit, passes when all
of it is within, and is inconclusive when the interval straddles the limit.
The tier's ceiling conditions say what the no-op ceiling must hold for the
run to judge anything (the default regression tier: thought p99 under 25 ms,
under 1 % of arrivals dropped, schedule lag p99 under 10 ms); when it misses
one, the machine could not sustain the tier and the verdict is inconclusive.

Tiers: smoke (seconds), regression (fixed rate, rounds), stress (rate ladder,
maximum sustainable rate), soak (long; slopes), long-session (10,000
thoughts: last 100 against first 100), listing (1,000 and 10,000 stored
sessions). Their parameters and thresholds are in the workload file.

Output under <out>/<run-id>/: load.json, load.md, load.html (charts),
scorecard.json, .md and .html (performance, stability and observability
axes, and the axes of the --with runs; the page draws the load charts),
transcripts/ (the first user's calls per phase, and every error), and
prometheus/ (the configuration, log and own calls of the Prometheus that
scraped the sidecars).

Exit status: 0 pass; 1 thoughts lost, thought calls answered without an
acknowledgement, or a phase aborted; 2 bad input, an unreachable target, a
target that does not speak the --era asked for, or nothing judged (every
relative threshold rests on one round: no confidence interval; the first
line says so); 3 inconclusive (the machine could not
sustain the tier, a relative threshold could not tell, or a phase got no
thought call answered); 99 a threshold failed.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitLoadPass
		}
		return exitLoadBadInput
	}
	bad := func(err error) int {
		fmt.Fprintln(os.Stderr, "tbbench load:", err)
		return exitLoadBadInput
	}
	if fs.NArg() > 0 {
		return bad(fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if err := cmp.Or(progressMode(*progress), positiveDuration("call-timeout", *timeout)); err != nil {
		return bad(err)
	}
	if err := tf.applyIdleTimeout(); err != nil {
		return bad(err)
	}
	tuneClientGC()
	if *cpuProf != "" {
		f, err := os.Create(*cpuProf)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			return bad(fmt.Errorf("--cpuprofile: %w", err))
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	if *printWL {
		os.Stdout.Write(workload.Example())
		return exitLoadPass
	}
	w := workload.Default()
	if *file != "" {
		var err error
		if w, err = workload.Load(*file); err != nil {
			return bad(err)
		}
	}
	if _, err := w.Tier(*tier); err != nil {
		return bad(err)
	}
	if err := overrideTier(w, *tier, *users, *rounds); err != nil {
		return bad(err)
	}
	rtMode, err := pace.ParseRealTime(*realTime)
	if err != nil {
		return bad(fmt.Errorf("--realtime-pacer: %w", err))
	}
	if rtMode == pace.RealTimeOn {
		if err := pace.RealTimePermitted(); err != nil {
			return bad(fmt.Errorf("--realtime-pacer on: %w", err))
		}
	}
	sg, err := segment.Parse(*seg)
	if err != nil {
		return bad(fmt.Errorf("--segment: %w", err))
	}
	var earlier []scorecards.Scorecard
	for _, d := range with {
		c, err := scorecards.Load(filepath.Join(d, "scorecard.json"))
		if err != nil {
			return bad(fmt.Errorf("--with %s: %w", d, err))
		}
		earlier = append(earlier, c)
	}
	if *tgt != "" && *tgt != "noop" {
		return bad(fmt.Errorf("--target must be noop, not %q (use --url or --command for other servers)", *tgt))
	}
	watcher, err := prometheusWatcher(*promBin)
	if err != nil {
		return bad(err)
	}
	spec := tf.spec()
	spec.Process = !*inProcess
	// The sessions reach the in-process sidecar without a socket: that hop
	// is the harness's own cost (docs/load.md).
	spec.HopInMemory = true
	if err := spec.Validate(); err != nil {
		return bad(err)
	}
	eras, err := target.ParseEras(*eraFlag)
	if err != nil {
		return bad(fmt.Errorf("--era: %w", err))
	}
	if len(eras) == 1 {
		spec.Era = eras[0]
	}
	var subjects []load.Subject
	runBaseline := *baseline
	if len(subjectFl) > 0 {
		for _, other := range []struct {
			flag string
			set  bool
		}{{"--compare-storage", *compare != ""}, {"--url", tf.url != ""}, {"--command", tf.command != ""},
			{"--target", *tgt != ""}, {"--compare-observatory", *compareOb}} {
			if other.set {
				return bad(errSubjectWith(other.flag))
			}
		}
		subjects, runBaseline, err = subjectsFromFlags(subjectFl, spec, tf.transport != "", *ceiling, *baseline)
	} else {
		subjects, err = loadSubjects(spec, *compare, *ceiling, *tgt == "noop")
	}
	if err != nil {
		return bad(err)
	}
	var baselines map[string]string
	if *baseBuild != "" {
		if subjects, baselines, err = withBaseBuild(subjects, spec, *baseBuild, len(subjectFl) > 0 || *tgt != "" || *compareOb || *inProcess); err != nil {
			return bad(err)
		}
	}
	if len(eras) > 1 {
		subjects = inEachEra(subjects, eras)
		baselines = baselinesInEachEra(subjects, baselines, runBaseline, eras)
		if runBaseline != "" && runBaseline != load.CeilingLabel {
			runBaseline += "@" + string(eras[0]) // the baseline in the first era, for itself in the others
		}
	}
	family, err := tf.family()
	if err != nil {
		return bad(err)
	}
	for i := range subjects {
		if subjects[i].Label != load.CeilingLabel {
			subjects[i].Profile = family
		}
	}
	if len(subjectFl) == 0 && runBaseline != "" && !slices.ContainsFunc(subjects, func(s load.Subject) bool { return s.Label == runBaseline }) {
		return bad(fmt.Errorf("--baseline %q: not one of the subjects (%s)", runBaseline, labels(subjects)))
	}
	var observatory *load.ObservatoryOptions
	if *compareOb {
		if subjects, observatory, err = observatorySubjects(spec, subjects, *compare); err != nil {
			return bad(err)
		}
	}
	if *runID == "" {
		*runID = time.Now().UTC().Format("20060102-150405") + "-load-" + *tier
	}
	dir := filepath.Join(*out, *runID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return bad(err)
	}
	var watch load.Watcher
	if watcher != nil {
		watcher.Dir = filepath.Join(dir, "prometheus")
		watch = watcher
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	live := load.NewLive()
	stopProgress := showLoadProgress(*progress, live)
	fmt.Fprintf(os.Stderr, "tbbench load: tier %s, targets %s, segment %s, seed %d, output %s\n", *tier, labels(subjects), sg, *seed, dir)
	rep, err := load.Run(ctx, load.Options{Tier: *tier, Workload: w, Subjects: subjects, Seed: *seed, Segment: sg,
		OutDir: dir, CallTimeout: *timeout, Live: live, Watcher: watch, Observatory: observatory, RealTime: rtMode,
		Baseline: runBaseline, Baselines: baselines})
	stopProgress()
	if err != nil && rep == nil {
		fmt.Fprintln(os.Stderr, "tbbench load:", err)
		if errors.Is(err, target.ErrUnreachable) || errors.Is(err, profile.ErrUndetected) || errors.Is(err, load.ErrFamily) ||
			errors.Is(err, target.ErrEraNotSpoken) {
			return exitLoadBadInput // nothing judged
		}
		return exitLoadFail
	}
	rep.RunID = *runID
	for _, t := range rep.Targets {
		how := "given with --profile"
		if t.ProfileDetected {
			how = "detected from tools/list"
		}
		if t.Label != load.CeilingLabel {
			fmt.Fprintf(os.Stderr, "tbbench load: %s: profile %s (%s)\n", t.Label, t.Profile, how)
		}
	}
	card := rep.Scorecard(scorecards.Harness{Version: version, GoVersion: runtime.Version()})
	if len(earlier) > 0 {
		card = scorecards.Combine(*runID, append(earlier, card))
	}
	for _, write := range []func() error{
		func() error { return rep.WriteFiles(dir) },
		func() error { _, err := writeScorecard(card, dir); return err },
	} {
		if werr := write(); werr != nil {
			fmt.Fprintln(os.Stderr, "tbbench load: writing results:", werr)
		}
	}
	fmt.Print(rep.Summary())
	for _, a := range card.Axes {
		if a.Score != nil {
			fmt.Printf("%-13s %5.1f%%  %s\n", a.Name, *a.Score*100, a.Summary)
		}
	}
	if len(earlier) > 0 {
		fmt.Printf("scorecard of the whole run: verdict %s\n", card.Verdict)
	}
	fmt.Printf("results in %s\n", dir)
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "tbbench load:", err)
		return exitLoadFail
	case rep.ThresholdsFailed():
		return exitLoadThresholds
	case rep.NothingJudged != "":
		fmt.Fprintln(os.Stderr, "tbbench load:", rep.NothingJudged)
		return exitLoadBadInput
	case rep.Verdict == load.VerdictInconclusive:
		fmt.Fprintln(os.Stderr, "tbbench load: inconclusive:", rep.Inconclusive)
		return exitLoadInconclusive
	case rep.Verdict != load.VerdictPass:
		return exitLoadFail
	}
	return exitLoadPass
}

// prometheusWatcher returns the watch --prometheus asks for: nil for off;
// for auto without prometheus on PATH, a watcher whose start fails, so the
// run notes why the check did not apply.
func prometheusWatcher(flagValue string) (*promwatch.Watcher, error) {
	switch flagValue {
	case "off":
		return nil, nil
	case "auto", "":
		return &promwatch.Watcher{}, nil
	}
	if _, err := exec.LookPath(flagValue); err != nil {
		return nil, fmt.Errorf("--prometheus %s: %w", flagValue, err)
	}
	return &promwatch.Watcher{Binary: flagValue}, nil
}

// loadSubjects lists what a load run measures: the target (or one embedded
// server per compared storage mode) and the no-op ceiling.
func loadSubjects(spec targetspec.Spec, compare string, ceiling, noopOnly bool) ([]load.Subject, error) {
	open := func(s targetspec.Spec) func(context.Context) (target.Target, error) {
		return func(ctx context.Context) (target.Target, error) { return s.Open(ctx) }
	}
	noop := spec
	noop.Noop, noop.URL, noop.Command = true, "", ""
	if noopOnly {
		return []load.Subject{{Label: load.CeilingLabel, Open: open(noop)}}, nil
	}
	noop.Era = ceilingEra
	var out []load.Subject
	if compare != "" {
		if spec.Kind() != target.KindEmbedded {
			return nil, errors.New("--compare-storage compares the embedded server's storage modes; it does not apply to --url or --command")
		}
		seen := map[string]bool{}
		for _, mode := range strings.Split(compare, ",") {
			mode = strings.TrimSpace(mode)
			s := spec
			s.Storage = mode
			if err := s.Validate(); err != nil {
				return nil, fmt.Errorf("--compare-storage: %w", err)
			}
			if seen[mode] {
				return nil, fmt.Errorf("--compare-storage names %s twice", mode)
			}
			seen[mode] = true
			out = append(out, load.Subject{Label: mode, Open: open(s)})
		}
	} else {
		label := spec.Storage
		if spec.Kind() != target.KindEmbedded {
			label = spec.Kind()
		}
		out = append(out, load.Subject{Label: label, Open: open(spec)})
	}
	if ceiling && spec.Transport == target.HTTP {
		out = append(out, load.Subject{Label: load.CeilingLabel, Open: open(noop)})
	}
	return out, nil
}

// ceilingEra is the era the no-op ceiling beside other subjects speaks,
// whatever theirs: 2025-11-25, the cheapest no-op of the library. Its
// 2026-07-28 handling costs more per call than the reference server's whole
// 2026 path (docs/figures.md), so it would bound nothing; the 2025 no-op is
// the limit both eras are measured against.
const ceilingEra = target.Era2025

// inEachEra measures every subject but the ceiling once per era, labelled
// LABEL@ERA, in the same rounds: the stateless and the session-based cost
// of the same server side by side.
func inEachEra(subjects []load.Subject, eras []target.Era) []load.Subject {
	var out []load.Subject
	for _, s := range subjects {
		if s.Label == load.CeilingLabel {
			out = append(out, s)
			continue
		}
		for _, era := range eras {
			open, era := s.Open, era
			out = append(out, load.Subject{Label: s.Label + "@" + string(era), Profile: s.Profile,
				Open: func(ctx context.Context) (target.Target, error) {
					t, err := open(ctx)
					if err != nil {
						return nil, err
					}
					return target.InEra(t, era), nil
				}})
		}
	}
	return out
}

func labels(s []load.Subject) string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = x.Label
	}
	return strings.Join(out, ", ")
}

// showLoadProgress shows the live figures: a bar on a terminal, else a line
// every five seconds.
func showLoadProgress(mode string, live *load.Live) (stop func()) {
	fi, err := os.Stderr.Stat()
	terminal := err == nil && fi.Mode()&os.ModeCharDevice != 0
	text := func() string {
		s := live.Status()
		if s.Phase == "" {
			return "starting the targets"
		}
		return fmt.Sprintf("%s: %.0f s, %d calls, %.0f/s, p99 %s, %d errors, %d dropped", s.Phase, s.Elapsed.Seconds(),
			s.Calls, s.Rate, s.P99.Round(10*time.Microsecond), s.Errors, s.Dropped)
	}
	interval, show, end := 5*time.Second, func() { fmt.Fprintln(os.Stderr, text()) }, func() {}
	if mode == "bar" || (mode == "auto" && terminal) {
		p := mpb.New(mpb.WithOutput(os.Stderr), mpb.WithWidth(1))
		bar := p.New(0, mpb.NopStyle(), mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return text() })))
		interval = 250 * time.Millisecond
		show = func() { bar.SetTotal(0, false) }
		end = func() { bar.Abort(false); p.Wait() }
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				end()
				return
			case <-tick.C:
				show()
			}
		}
	}()
	return func() { close(done); <-finished }
}
