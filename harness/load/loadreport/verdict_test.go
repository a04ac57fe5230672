package loadreport

import (
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
	"github.com/thoughtbox-bench/tbbench/harness/load/threshold"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// roundFig is one subject's figures in one round of a synthetic run.
type roundFig struct {
	thought  time.Duration // the latency of each of its 200 thought calls
	cpuUs    float64       // server CPU per call
	dropped  uint64        // arrivals dropped (of 200)
	lostSome bool          // one acknowledged thought not read back
	unread   bool          // two acknowledged thoughts whose read-back got no answer
}

// syntheticRun builds a finished regression report: each label's rounds
// with the given figures, the default regression tier's thresholds and
// ceiling conditions, and baseline as the baseline.
func syntheticRun(t *testing.T, baseline string, rounds map[string][]roundFig) *Report {
	t.Helper()
	return syntheticRunOf(t, RunInfo{Baseline: baseline}, rounds)
}

// syntheticRunOf is syntheticRun with the run's baselines given by run
// (its Baseline and Baselines); its subjects are the labels of rounds, in
// order, the ceiling last.
func syntheticRunOf(t *testing.T, run RunInfo, rounds map[string][]roundFig) *Report {
	t.Helper()
	tier, err := workload.Default().Tier(workload.Regression)
	if err != nil {
		t.Fatal(err)
	}
	run.Workload, run.Tier, run.Nonce, run.Segment = workload.Default(), tier, "synthetic", "1/1"
	r := New(run)
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	labels := slices.Sorted(maps.Keys(rounds))
	if i := slices.Index(labels, CeilingLabel); i >= 0 {
		labels = append(slices.Delete(labels, i, i+1), CeilingLabel)
	}
	for _, label := range labels {
		figs := rounds[label]
		kind := "command"
		if label == CeilingLabel {
			kind = "noop"
		}
		r.Targets = append(r.Targets, TargetInfo{Label: label, Kind: kind, Transport: "http", Address: "127.0.0.1"})
		for i, f := range figs {
			rec := metrics.NewRecorder(start, 1)
			for k := 0; k < 200; k++ {
				at := start.Add(time.Duration(k) * 5 * time.Millisecond)
				rec.Iteration(0, at, at)
				rec.Record(0, metrics.Call{Op: "thought", Scheduled: at, Sent: at, Done: at.Add(f.thought)})
			}
			for k := uint64(0); k < f.dropped; k++ {
				rec.Dropped(0, start)
			}
			p := PhaseResult{Name: label, Label: label, Round: i + 1, Rate: 800, Metrics: rec.Snapshot(start.Add(time.Second)),
				Process: &ProcessStats{CPUPerCallUs: f.cpuUs, MaxRSSMiB: 20}, Verification: &Verification{Applicable: true, Acknowledged: 10}}
			if f.lostSome {
				p.Verification.Missing = 1
			}
			if f.unread {
				p.Verification.Unread = 2
			}
			r.Phases = append(r.Phases, p)
		}
	}
	r.Finish()
	return r
}

// same returns n rounds of the same figures, with a little noise.
func same(n int, thought time.Duration, cpuUs float64) []roundFig {
	out := make([]roundFig, n)
	for i := range out {
		wiggle := 1 + 0.02*math.Sin(float64(i)*1.7)
		out[i] = roundFig{thought: time.Duration(float64(thought) * wiggle), cpuUs: cpuUs * wiggle}
	}
	return out
}

// loadGate returns the scorecard's gate of the load thresholds.
func loadGate(t *testing.T, c scorecards.Scorecard) scorecards.Gate {
	t.Helper()
	for _, g := range c.Gates {
		if g.Name == GateThresholds {
			return g
		}
	}
	t.Fatalf("no gate %q in %+v", GateThresholds, c.Gates)
	return scorecards.Gate{}
}

func relative(r *Report, subject, selector, expr string) ThresholdOutcome {
	for _, o := range r.Relative {
		if o.Subject == subject && o.Selector == selector && o.Expression == expr {
			return o
		}
	}
	return ThresholdOutcome{}
}

func TestVerdictPass(t *testing.T) {
	r := syntheticRun(t, "base", map[string][]roundFig{
		"base": same(8, 2*time.Millisecond, 300), "head": same(8, 2*time.Millisecond, 305), CeilingLabel: same(8, time.Millisecond, 100)})
	if r.Verdict != VerdictPass || r.ThresholdsFailed() || r.Inconclusive != "" {
		t.Fatalf("verdict %s (%s), problems %v, relative %+v", r.Verdict, r.Inconclusive, r.Problems, r.Relative)
	}
	o := relative(r, "head", "ratio{vs:baseline}", "cpu_per_call<1.05")
	if o.Status != "passed" || o.Reference != "base" {
		t.Fatalf("head's CPU against the base: %+v", o)
	}
	x, ok := r.ratio("head", threshold.VersusBaseline, ratioFigure{agg: threshold.Aggregation{Func: threshold.CPUPerCall}})
	if !ok || !x.Bounded || x.Low > x.Estimate || x.High < x.Estimate || math.Abs(x.Estimate-305.0/300) > 0.01 {
		t.Fatalf("ratio %+v", x)
	}
	if g := loadGate(t, r.Scorecard(scorecards.Harness{})); !g.Passed {
		t.Fatalf("gate %+v", g)
	}
}

// A regression whose whole interval is past the limit fails; one whose
// interval straddles it is inconclusive.
func TestVerdictFailAndInconclusiveOnTheInterval(t *testing.T) {
	r := syntheticRun(t, "base", map[string][]roundFig{
		"base": same(8, 2*time.Millisecond, 300), "head": same(8, 2*time.Millisecond, 375), CeilingLabel: same(8, time.Millisecond, 100)})
	if r.Verdict != VerdictFail || !r.ThresholdsFailed() {
		t.Fatalf("25 %% more CPU per call: verdict %s, relative %+v", r.Verdict, r.Relative)
	}
	if o := relative(r, "head", "ratio{vs:baseline}", "cpu_per_call<1.05"); o.Status != "failed" || !strings.Contains(r.Markdown(), "cpu_per_call<1.05") {
		t.Fatalf("outcome %+v", o)
	}
	if o := relative(r, "base", "ratio{vs:baseline}", "cpu_per_call<1.05"); o.Status != "" {
		t.Fatalf("the baseline was judged against itself: %+v", o)
	}
	// Head's CPU alternates 1.00 and 1.20 of the base's: the interval
	// holds 1.05.
	head := same(8, 2*time.Millisecond, 300)
	for i := range head {
		if i%2 == 1 {
			head[i].cpuUs *= 1.2
		}
	}
	r = syntheticRun(t, "base", map[string][]roundFig{"base": same(8, 2*time.Millisecond, 300), "head": head, CeilingLabel: same(8, time.Millisecond, 100)})
	if r.Verdict != VerdictInconclusive || r.ThresholdsFailed() || !strings.Contains(r.Inconclusive, "cpu_per_call<1.05") {
		t.Fatalf("straddling interval: verdict %s (%s), relative %+v", r.Verdict, r.Inconclusive, r.Relative)
	}
	if g := loadGate(t, r.Scorecard(scorecards.Harness{})); !g.Inconclusive || g.Passed {
		t.Fatalf("gate %+v", g)
	}
}

// When the no-op ceiling cannot hold the tier, the run is inconclusive
// whatever the subjects did, and no performance or stability axis is
// scored; a lost thought still fails it.
func TestVerdictInconclusiveWhenTheCeilingCannotHold(t *testing.T) {
	busy := same(8, 92*time.Millisecond, 100)
	for i := range busy {
		busy[i].dropped = 8
	}
	r := syntheticRun(t, "base", map[string][]roundFig{
		"base": same(8, 200*time.Millisecond, 300), "head": same(8, 400*time.Millisecond, 900), CeilingLabel: busy})
	if r.Verdict != VerdictInconclusive || r.ThresholdsFailed() {
		t.Fatalf("verdict %s, problems %v", r.Verdict, r.Problems)
	}
	for _, want := range []string{"could not sustain 800 calls/s", "thought latency p(99) 9", "dropped rate 3.8"} {
		if !strings.Contains(r.Inconclusive, want) {
			t.Errorf("reason %q lacks %q", r.Inconclusive, want)
		}
	}
	if len(r.Notes) == 0 || !strings.Contains(r.Markdown(), "## Inconclusive") {
		t.Errorf("the unjudged thresholds are not noted: %v", r.Notes)
	}
	card := r.Scorecard(scorecards.Harness{})
	if g := loadGate(t, card); !g.Inconclusive || !strings.Contains(g.Detail, "could not sustain") {
		t.Fatalf("gate %+v", g)
	}
	for _, name := range []string{scorecards.AxisPerformance, scorecards.AxisStability} {
		if a, _ := card.Axis(name); a.Measured() {
			t.Errorf("%s scored from a run the machine could not sustain", name)
		}
	}
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(filepath.Join(dir, "load.json"))
	if err != nil || back.Verdict != VerdictInconclusive || back.Inconclusive != r.Inconclusive {
		t.Fatalf("load.json read back: %v %+v", err, back)
	}
	if page, _ := os.ReadFile(filepath.Join(dir, "load.html")); !strings.Contains(string(page), "Inconclusive: the machine could not sustain") {
		t.Error("load.html does not say why the run is inconclusive")
	}
	busy[3].lostSome = true
	lost := syntheticRun(t, "base", map[string][]roundFig{"base": same(8, 2*time.Millisecond, 300), CeilingLabel: busy})
	if lost.Verdict != VerdictFail {
		t.Fatalf("a lost thought on a busy machine: verdict %s", lost.Verdict)
	}
}

// TestUnreadThoughtsMakeARunInconclusive: acknowledged thoughts whose
// read-back got no answer are neither kept nor lost: a run that would pass
// is inconclusive, with the reason, and its no-loss gate too; with a
// thought lost besides, it fails.
func TestUnreadThoughtsMakeARunInconclusive(t *testing.T) {
	head := same(8, 2*time.Millisecond, 300)
	head[2].unread = true
	r := syntheticRun(t, "", map[string][]roundFig{"base": same(8, 2*time.Millisecond, 300), "head": head})
	if r.Verdict != VerdictInconclusive || !strings.Contains(r.Inconclusive, "got no answer when read back in head (2 of 10)") {
		t.Fatalf("verdict %s: %q", r.Verdict, r.Inconclusive)
	}
	if r.Lost() != 0 || r.Unread() != 2 || !strings.Contains(r.Summary(), "head     2 acknowledged thoughts got no answer when read back") {
		t.Errorf("lost %d, unread %d; summary:\n%s", r.Lost(), r.Unread(), r.Summary())
	}
	card := r.Scorecard(scorecards.Harness{})
	for _, g := range card.Gates {
		if g.Name == GateNoLoss && (g.Passed || !g.Inconclusive || !strings.Contains(g.Detail, "2 got no answer")) {
			t.Errorf("no-loss gate %+v", g)
		}
	}
	head[2].lostSome = true
	r = syntheticRun(t, "", map[string][]roundFig{"base": same(8, 2*time.Millisecond, 300), "head": head})
	if r.Verdict != VerdictFail {
		t.Errorf("a lost thought beside unread ones: verdict %s", r.Verdict)
	}
}

// Without a ceiling or a baseline, the ratios to them are not applicable,
// and say why; one round gives no interval, so it cannot pass.
func TestVerdictNotApplicableAndTooFewRounds(t *testing.T) {
	r := syntheticRun(t, "", map[string][]roundFig{"base": same(8, 2*time.Millisecond, 300), "head": same(8, 2*time.Millisecond, 300)})
	for _, o := range r.Relative {
		if o.Status != "not applicable" || o.Observed == "" {
			t.Errorf("%+v", o)
		}
	}
	if r.Verdict != VerdictPass {
		t.Fatalf("verdict %s", r.Verdict)
	}
	r = syntheticRun(t, "base", map[string][]roundFig{"base": same(1, 2*time.Millisecond, 300), "head": same(1, 2*time.Millisecond, 300),
		CeilingLabel: same(1, time.Millisecond, 100)})
	if r.Verdict != VerdictInconclusive || !strings.HasPrefix(r.NothingJudged, "nothing judged: 6 relative threshold(s) rest on 1 paired round") ||
		!strings.HasPrefix(r.Summary(), "nothing judged") {
		t.Fatalf("one round: verdict %s, %q, relative %+v", r.Verdict, r.NothingJudged, r.Relative)
	}
}

func TestPairedRatio(t *testing.T) {
	x := pairedRatio(map[int]float64{1: 2, 2: 8, 3: 4}, map[int]float64{1: 1, 2: 2, 3: 0, 4: 5})
	// Rounds 1 and 2 pair (round 3's reference is 0, round 4 has no
	// subject): ratios 2 and 4, geometric mean √8.
	if len(x.Rounds) != 2 || math.Abs(x.Estimate-math.Sqrt(8)) > 1e-12 || !x.Bounded {
		t.Fatalf("%+v", x)
	}
	// t(1) = 12.706: half-width 12.706 · sd(log 2, log 4)/√2.
	half := 12.706 * (math.Log(4) - math.Log(2)) / math.Sqrt2 / math.Sqrt2
	if math.Abs(x.Low-math.Sqrt(8)*math.Exp(-half)) > 1e-9 || math.Abs(x.High-math.Sqrt(8)*math.Exp(half)) > 1e-9 {
		t.Fatalf("interval [%g, %g]", x.Low, x.High)
	}
	if one := pairedRatio(map[int]float64{1: 3}, map[int]float64{1: 2}); one.Bounded || one.Estimate != 1.5 {
		t.Fatalf("%+v", one)
	}
}

// A phase that acknowledged no thought cannot show that none was lost:
// when its thought calls were answered, the target answered them without
// an acknowledgement and the run fails; when none was answered (a round
// too short for the machine), the run cannot tell and is inconclusive.
func TestVerdictOnAPhaseThatAcknowledgedNothing(t *testing.T) {
	run := func() *Report {
		r := syntheticRun(t, "base", map[string][]roundFig{
			"base": same(8, 2*time.Millisecond, 300), "head": same(8, 2*time.Millisecond, 300), CeilingLabel: same(8, time.Millisecond, 100)})
		if r.Verdict != VerdictPass {
			t.Fatalf("before: verdict %s (%s), problems %v", r.Verdict, r.Inconclusive, r.Problems)
		}
		return r
	}
	r := run()
	head := r.roundPhases("head")[2]
	head.Verification.Acknowledged = 0
	r.judge()
	if r.Verdict != VerdictFail || len(r.Problems) != 1 || !strings.Contains(r.Problems[0], "head: the target answered 200 thought call(s) without acknowledging") {
		t.Errorf("answered, none acknowledged: verdict %s, problems %q", r.Verdict, r.Problems)
	}

	r = run()
	head = r.roundPhases("head")[2]
	head.Verification.Acknowledged = 0
	head.Metrics.Ops[string(workload.OpThought)].Successes = 0
	r.judge()
	if r.Verdict != VerdictInconclusive || len(r.Problems) != 0 || !strings.Contains(r.Inconclusive, "no thought call was answered in head,") {
		t.Errorf("none answered: verdict %s (%s), problems %q", r.Verdict, r.Inconclusive, r.Problems)
	}
}

// TestSubjectsAgainstBaselinesOfTheirOwn: a subject named in Baselines is
// judged against its own baseline (each build against the other build in
// the same storage mode); the others against the run's Baseline, if any;
// a baseline is never judged against itself.
func TestSubjectsAgainstBaselinesOfTheirOwn(t *testing.T) {
	cpu := "cpu_per_call<1.05"
	r := syntheticRunOf(t, RunInfo{Baselines: map[string]string{"fs": "fs-base", "memory": "memory-base"}}, map[string][]roundFig{
		"fs": same(8, 2*time.Millisecond, 300), "fs-base": same(8, 2*time.Millisecond, 330),
		"memory": same(8, 2*time.Millisecond, 120), "memory-base": same(8, 2*time.Millisecond, 100),
		CeilingLabel: same(8, time.Millisecond, 80)})
	for subject, want := range map[string]struct{ status, reference string }{
		"fs":     {"passed", "fs-base"},     // 0.91 of its base; 3.0 of memory's
		"memory": {"failed", "memory-base"}, // 1.2 of its base
	} {
		if o := relative(r, subject, "ratio{vs:baseline}", cpu); o.Status != want.status || o.Reference != want.reference {
			t.Errorf("%s: %+v, want %s against %s", subject, o, want.status, want.reference)
		}
	}
	for _, base := range []string{"fs-base", "memory-base"} {
		if o := relative(r, base, "ratio{vs:baseline}", cpu); o.Status != "" {
			t.Errorf("the baseline %s was judged: %+v", base, o)
		}
		if _, ok := r.ratio(base, threshold.VersusBaseline, ratioFigure{agg: threshold.Aggregation{Func: threshold.CPUPerCall}}); ok {
			t.Errorf("the baseline %s has a ratio to a baseline", base)
		}
	}
	x, ok := r.ratio("fs", threshold.VersusBaseline, ratioFigure{agg: threshold.Aggregation{Func: threshold.CPUPerCall}})
	if !ok || x.Reference != "fs-base" || math.Abs(x.Estimate-300.0/330) > 0.01 {
		t.Errorf("fs against its base: %+v", x)
	}
	if !strings.Contains(r.Markdown(), "| fs | fs-base (baseline) |") {
		t.Errorf("load.md does not name fs's own baseline:\n%s", r.Markdown())
	}

	// Eras: each against the baseline in its era; the baseline's later era
	// against the run's baseline (its first era).
	r = syntheticRunOf(t, RunInfo{Baseline: "base@1", Baselines: map[string]string{"head@1": "base@1", "head@2": "base@2"}}, map[string][]roundFig{
		"base@1": same(8, 2*time.Millisecond, 100), "head@1": same(8, 2*time.Millisecond, 101),
		"base@2": same(8, 2*time.Millisecond, 200), "head@2": same(8, 2*time.Millisecond, 199)})
	for subject, want := range map[string]struct{ status, reference string }{
		"head@1": {"passed", "base@1"}, "head@2": {"passed", "base@2"}, "base@2": {"failed", "base@1"},
	} {
		if o := relative(r, subject, "ratio{vs:baseline}", cpu); o.Status != want.status || o.Reference != want.reference {
			t.Errorf("%s: %+v, want %s against %s", subject, o, want.status, want.reference)
		}
	}
}
