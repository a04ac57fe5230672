package load_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/load"
	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/harness/load/segment"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/noop"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
)

func TestMain(m *testing.M) {
	embedded.ServeIfRequested()
	noop.ServeIfRequested()
	os.Exit(m.Run())
}

// testWorkload has short tiers, so the tests stay quick on two cores. Its
// smoke tier's thresholds hold on any machine; faultWorkload adds one on
// latency that only a server slowed by the injected delay misses.
func testWorkload(t *testing.T) *workload.Workload { return parseWorkload(t, "") }

func faultWorkload(t *testing.T) *workload.Workload {
	return parseWorkload(t, `      latency{op:thought}: ["p(50)<`+brokenserver.SlowCallDelay.String()+`"]`)
}

func parseWorkload(t *testing.T, smokeThreshold string) *workload.Workload {
	t.Helper()
	w, err := workload.Parse("test.yaml", []byte(`
session:
  thoughts: {min: 4, max: 8}
  thoughtBytes: {min: 100, max: 300}
tiers:
  smoke:
    model: closed
    users: 2
    duration: 1500ms
    thresholds:
      errors: ["count==0"]
`+smokeThreshold+`
  regression:
    model: open
    rate: 200
    duration: 1s
    maxUsers: 16
    rounds: 2
    warmup: 1s # long enough for sessions to reach their thoughts on a busy machine
    thresholds:
      errors: ["rate<1%"]
`))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func subject(label string, open func(ctx context.Context) (target.Target, error)) load.Subject {
	return load.Subject{Label: label, Open: open}
}

func embeddedSubject(storage string) load.Subject {
	return subject(storage, func(ctx context.Context) (target.Target, error) {
		return embedded.New(ctx, embedded.Options{Storage: storage})
	})
}

// TestSmokeKeepsEveryThought runs the smoke tier against the embedded server
// with both storages and the no-op ceiling: every acknowledged thought is
// read back, the figures are there, and the files match their schema.
func TestSmokeKeepsEveryThought(t *testing.T) {
	dir := t.TempDir()
	rep, err := load.Run(context.Background(), load.Options{Tier: workload.Smoke, Workload: testWorkload(t), Seed: 7, OutDir: dir,
		Subjects: []load.Subject{embeddedSubject("fs"), embeddedSubject("memory"),
			subject(load.CeilingLabel, func(ctx context.Context) (target.Target, error) { return noop.New(ctx, noop.Options{}) })}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != load.VerdictPass {
		t.Fatalf("verdict %s: %v", rep.Verdict, rep.Problems)
	}
	if len(rep.Phases) != 3 || len(rep.Summaries) != 3 {
		t.Fatalf("%d phases, %d summaries", len(rep.Phases), len(rep.Summaries))
	}
	for _, p := range rep.Phases {
		tot := p.Metrics.Total()
		if tot.Calls == 0 || tot.Errors != 0 {
			t.Errorf("%s: %d calls, %d errors %v", p.Name, tot.Calls, tot.Errors, tot.ErrorClasses)
		}
		if p.Process == nil && p.ClientCPUPerCallUs != 0 {
			t.Errorf("%s: a client CPU per call (%.0f µs) beside a server in this process, whose time it would include", p.Name, p.ClientCPUPerCallUs)
		}
		if p.Label == load.CeilingLabel {
			if p.Verification != nil {
				t.Errorf("the ceiling keeps nothing, yet it was verified")
			}
			continue
		}
		v := p.Verification
		if v == nil || !v.Applicable || v.Acknowledged < 10 || v.Missing != 0 {
			t.Errorf("%s: verification %+v", p.Name, v)
		}
		for _, op := range []string{"initialize", "start_new", "cipher", "thought", "close"} {
			if p.Metrics.Op(op).Calls == 0 {
				t.Errorf("%s: no %s call measured", p.Name, op)
			}
		}
	}
	if err := rep.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	back, err := loadreport.ReadReport(filepath.Join(dir, "load.json"))
	if err != nil {
		t.Fatal(err)
	}
	if back.Phases[0].Metrics.Total().Calls != rep.Phases[0].Metrics.Total().Calls {
		t.Error("load.json does not keep the histograms' counts")
	}
	html, _ := os.ReadFile(filepath.Join(dir, "load.html"))
	if n := strings.Count(string(html), "<svg"); n < 2 || strings.Contains(string(html), "https://") {
		t.Errorf("load.html has %d charts or loads something from the network", n)
	}
	if err := gzipped(filepath.Join(dir, "transcripts", "smoke-fs-user0.jsonl")); err != nil {
		t.Error(err)
	}
}

// brokenTarget is the reference server behind a broken proxy, as a URL
// target.
func brokenTarget(t *testing.T, fault brokenserver.Fault) load.Subject {
	ref, err := embedded.New(context.Background(), embedded.Options{Storage: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Close() })
	proxy, err := brokenserver.New(ref.HTTPBase(), fault, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return subject(string(fault), func(ctx context.Context) (target.Target, error) {
		return target.NewURL(ctx, srv.URL+"/mcp", target.URLOptions{})
	})
}

// TestFaultsAreReported runs the smoke tier against servers that are slow,
// lose thoughts or fail calls: each shows where it should, and none passes.
func TestFaultsAreReported(t *testing.T) {
	for _, fault := range brokenserver.LoadFaults {
		if fault == brokenserver.SlowThought || fault == brokenserver.CostlyThought {
			continue // within any absolute limit: only an A/B run shows them (TestABRunCatchesAPlantedRegression)
		}
		t.Run(string(fault), func(t *testing.T) {
			brokenserver.Proof(t, "load "+string(fault))
			rep, err := load.Run(context.Background(), load.Options{Tier: workload.Smoke, Workload: faultWorkload(t), Seed: 3,
				Subjects: []load.Subject{brokenTarget(t, fault)}})
			if err != nil {
				t.Fatal(err)
			}
			p := rep.Phases[0]
			if rep.Verdict == load.VerdictPass {
				t.Fatalf("a server with fault %s passed", fault)
			}
			switch fault {
			case brokenserver.SlowCalls:
				if p50 := p.Metrics.Op("thought").Latency.P50; p50 < brokenserver.SlowCallDelay {
					t.Errorf("thought p50 %s, below the injected delay", p50)
				}
				if !rep.ThresholdsFailed() {
					t.Error("the latency threshold did not fail")
				}
			case brokenserver.LosesThoughts:
				if rep.Lost() == 0 {
					t.Errorf("no lost thought found: %+v", p.Verification)
				}
			case brokenserver.FailsCalls:
				classes := map[string]uint64{}
				for _, c := range p.Metrics.Total().ErrorClasses {
					classes[c.Class] = c.Count
				}
				if classes["jsonrpc_-32603"] == 0 || classes["http_503"] == 0 {
					t.Errorf("error classes %v", classes)
				}
				if !rep.ThresholdsFailed() {
					t.Error("the errors threshold did not fail")
				}
			}
			if !strings.Contains(rep.Markdown(), "Problems") {
				t.Error("load.md does not list the problems")
			}
		})
	}
}

// TestSegmentsAddUpToTheWhole runs the regression tier once whole and once
// as four segments at the same time against one server, then merges the
// segments: the arrivals and calls add up to the whole's.
func TestSegmentsAddUpToTheWhole(t *testing.T) {
	tg, err := embedded.New(context.Background(), embedded.Options{Storage: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	shared := subject("memory", func(context.Context) (target.Target, error) { return unclosable{tg}, nil })
	w := testWorkload(t)
	run := func(seg segment.Segment) *load.Report {
		rep, err := load.Run(context.Background(), load.Options{Tier: workload.Regression, Workload: w, Seed: 11, Segment: seg,
			Subjects: []load.Subject{shared}})
		if err != nil {
			t.Error(err)
			return nil
		}
		// Through JSON, as tbbench merge reads them.
		b, err := rep.JSON()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "load.json")
		os.WriteFile(path, b, 0o644)
		back, err := loadreport.ReadReport(path)
		if err != nil {
			t.Fatal(err)
		}
		return back
	}
	whole := run(segment.Segment{Index: 1, Count: 1})
	// The warm-up runs first, is read back, and is left out of the rounds.
	if len(whole.Phases) != 3 || !whole.Phases[0].Warmup || !strings.HasSuffix(whole.Phases[0].Name, "warm-up") || whole.Phases[1].Warmup {
		t.Fatalf("phases %v", names(whole.Phases))
	}
	if v := whole.Phases[0].Verification; v == nil || v.Acknowledged == 0 || v.Missing != 0 || len(whole.Phases[0].Thresholds) != 0 {
		t.Errorf("warm-up verification %+v, thresholds %v", v, whole.Phases[0].Thresholds)
	}
	if rounds := whole.Phases[1].Metrics.Total().Calls + whole.Phases[2].Metrics.Total().Calls; whole.Summaries[0].Calls != rounds {
		t.Errorf("the summary holds %d calls, the two rounds made %d", whole.Summaries[0].Calls, rounds)
	}
	parts := make([]*load.Report, 4)
	var wg sync.WaitGroup
	for i := range parts {
		wg.Add(1)
		go func() { defer wg.Done(); parts[i] = run(segment.Segment{Index: i + 1, Count: 4}) }()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	merged, err := loadreport.Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loadreport.Merge([]*loadreport.Report{parts[0], parts[0]}); err == nil {
		t.Error("a segment merged twice")
	}
	if len(merged.Phases) != len(whole.Phases) {
		t.Fatalf("%d merged phases, %d whole", len(merged.Phases), len(whole.Phases))
	}
	for i, p := range merged.Phases {
		wp := whole.Phases[i]
		arrivals := func(p loadreport.PhaseResult) uint64 { return p.Started + p.Dropped }
		if arrivals(p) != arrivals(wp) || p.Users != wp.Users {
			t.Errorf("%s: merged %d arrivals and %d users, whole %d and %d", p.Name, arrivals(p), p.Users, arrivals(wp), wp.Users)
		}
		if p.Metrics.Iterations+p.Metrics.Dropped != arrivals(wp) {
			t.Errorf("%s: merged histograms hold %d arrivals, the whole %d", p.Name, p.Metrics.Iterations+p.Metrics.Dropped, arrivals(wp))
		}
		if p.Verification.Missing != 0 || p.Verification.Acknowledged == 0 {
			t.Errorf("%s: merged verification %+v", p.Name, p.Verification)
		}
	}
	if merged.Summaries[0].Throughput.N != 2 {
		t.Errorf("merged summary over %d rounds", merged.Summaries[0].Throughput.N)
	}
	// The percentiles of timed runs differ with the machine's load; that a
	// merge of histograms gives one process's percentiles is shown exactly
	// by package metrics. Here: every call of the segments is in the merge.
	var calls uint64
	for _, p := range parts {
		calls += p.Summaries[0].Merged.Total().Calls
	}
	if got := merged.Summaries[0].Merged.Total().Calls; got != calls {
		t.Errorf("the merge holds %d calls, the segments made %d", got, calls)
	}
	b, _ := json.Marshal(merged.Segments)
	if string(b) != `["1/4","2/4","3/4","4/4"]` {
		t.Errorf("segments %s", b)
	}
}

func names(ps []loadreport.PhaseResult) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// TestStressLadderJudgesTheLadder: the rungs above the maximum sustainable
// rate miss their SLO by design and fail nothing; a ladder no rung of which
// met its SLO fails as a threshold does. Ladders have no rounds to compare.
// The rungs above 100/s are far above it (400 and 800), so that a busy
// machine, on which the no-op server achieved 69 calls/s at an offered 160,
// still carries them past the SLO.
func TestStressLadderJudgesTheLadder(t *testing.T) {
	ctx := context.Background()
	tg, err := noop.New(ctx, noop.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ladder := func(slo string, labels ...string) *load.Report {
		t.Helper()
		w, err := workload.Parse("stress.yaml", []byte(`
tiers:
  stress:
    model: open
    maxUsers: 8
    ladder:
      rates: [40, 400, 800]
      stepDuration: 300ms
      slo:
        throughput: ["`+slo+`"]
`))
		if err != nil {
			t.Fatal(err)
		}
		var subjects []load.Subject
		for _, l := range labels {
			subjects = append(subjects, subject(l, func(context.Context) (target.Target, error) { return unclosable{tg}, nil }))
		}
		rep, err := load.Run(ctx, load.Options{Tier: workload.Stress, Workload: w, Seed: 5, OutDir: t.TempDir(), Subjects: subjects})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}

	rep := ladder("rate<100", "a", "b")
	for _, s := range rep.Stress {
		if s.MaxSustainable != 40 || len(s.Rungs) != 3 || s.Rungs[1].Passed || s.Rungs[2].Passed {
			t.Fatalf("a throughput below 100/s: stress result %+v", s)
		}
	}
	if len(rep.Stress) != 2 || len(rep.Comparisons) != 0 {
		t.Errorf("two ladders: %d stress results, comparisons %+v (want none: no rounds)", len(rep.Stress), rep.Comparisons)
	}
	if rep.Verdict != load.VerdictPass || rep.ThresholdsFailed() || len(rep.Problems) != 0 {
		t.Errorf("two rungs above the maximum: verdict %s, thresholds failed %v, problems %q", rep.Verdict, rep.ThresholdsFailed(), rep.Problems)
	}
	if probes := probes(rep.Phases); probes != 6 {
		t.Errorf("%d phases marked as rungs, want 6", probes)
	}

	rep = ladder("rate<10", load.CeilingLabel)
	if s := rep.Stress[0]; s.MaxSustainable != 0 || s.Half != nil {
		t.Fatalf("a throughput below 10/s: stress result %+v", s)
	}
	if rep.Verdict != load.VerdictFail || !rep.ThresholdsFailed() || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "no rung") {
		t.Errorf("no rung met the SLO: verdict %s, thresholds failed %v, problems %q", rep.Verdict, rep.ThresholdsFailed(), rep.Problems)
	}
}

func probes(phases []loadreport.PhaseResult) int {
	n := 0
	for _, p := range phases {
		if p.Probe {
			n++
		}
	}
	return n
}

// unclosable shares one target between runs.
type unclosable struct{ target.Target }

func (unclosable) Close() error { return nil }

// TestStressLadderReportsHalfTheMaximum climbs a short ladder against the
// no-op server: a warm-up first, every rung, then a phase at half the
// maximum sustainable rate with its thought p99, in the report and its
// files.
func TestStressLadderReportsHalfTheMaximum(t *testing.T) {
	w, err := workload.Parse("stress.yaml", []byte(`
session:
  thoughts: {min: 4, max: 8}
tiers:
  stress:
    model: open
    maxUsers: 16
    rounds: 1
    warmup: 400ms
    ladder:
      start: 100
      factor: 2
      steps: 3
      stepDuration: 600ms
      slo:
        latency: ["p(99)<5s"]
        errors: ["rate<1%"]
`))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rep, err := load.Run(context.Background(), load.Options{Tier: workload.Stress, Workload: w, Seed: 3, OutDir: dir,
		Subjects: []load.Subject{subject(load.CeilingLabel, func(ctx context.Context) (target.Target, error) { return noop.New(ctx, noop.Options{}) })}})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(rep.Phases); len(got) != 5 || !rep.Phases[0].Warmup || rep.Phases[1].Warmup || !strings.Contains(got[4], "half the maximum") {
		t.Fatalf("phases %v", got)
	}
	if len(rep.Stress) != 1 {
		t.Fatalf("%d stress results", len(rep.Stress))
	}
	s := rep.Stress[0]
	if len(s.Rungs) != 3 || s.MaxSustainable != 400 || s.Half == nil || s.Half.Rate != 200 || !s.Half.Passed || s.HalfThoughtP99Ms <= 0 {
		t.Fatalf("stress result %+v, half %+v", s, s.Half)
	}
	if err := rep.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	back, err := loadreport.ReadReport(filepath.Join(dir, "load.json"))
	if err != nil {
		t.Fatal(err)
	}
	if h := back.Stress[0].Half; h == nil || h.Rate != 200 || back.Stress[0].HalfThoughtP99Ms != s.HalfThoughtP99Ms {
		t.Errorf("read back: %+v", back.Stress[0])
	}
	md, _ := os.ReadFile(filepath.Join(dir, "load.md"))
	if !strings.Contains(string(md), "At half the maximum sustainable rate (200 calls/s offered") {
		t.Errorf("load.md does not show the half-rate phase:\n%s", md)
	}
}
