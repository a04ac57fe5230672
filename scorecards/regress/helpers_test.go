package regress

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// machine is a fixed machine fingerprint.
func machine() scorecards.Machine {
	return scorecards.Machine{OS: "linux", Arch: "amd64", CPUModel: "Test CPU @ 3.00GHz", Cores: 2, GOMAXPROCS: 2,
		MemoryBytes: 8 << 30, Kernel: "6.1.0-test"}
}

// card returns a finished scorecard of target fs with the given axis
// scores (NaN: not measured).
func card(runID string, axes map[string]float64) scorecards.Scorecard {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := scorecards.Scorecard{RunID: runID, StartedAt: start, FinishedAt: start.Add(time.Minute),
		Target:  scorecards.Target{Name: "fs", Kind: scorecards.TargetEmbedded, Transport: "http", Storage: "fs"},
		Harness: scorecards.Harness{Version: "0.1.0", GoVersion: "go1.26.8"}, Machine: machine()}
	for _, name := range axisNames() {
		if v, ok := axes[name]; ok {
			s.Axes = append(s.Axes, scorecards.Axis{Name: name, Score: &v, Weight: scorecards.DefaultWeight(name)})
		}
	}
	s.Finish()
	return s
}

// rounds returns n rounds around the throughput tput (calls/s) and the
// latency latMs, each spread by ±spread (a fraction) with a seeded
// generator.
func rounds(seed uint64, n int, tput, latMs, spread float64) [][2]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([][2]float64, n)
	for i := range out {
		out[i] = [2]float64{tput * (1 + spread*(2*rng.Float64()-1)), latMs * (1 + spread*(2*rng.Float64()-1))}
	}
	return out
}

// report returns a load report of the regression tier with target fs,
// whose rounds have the given throughput and latency (every call the
// same latency: so it is the p99 and the thought's p99).
func report(rs [][2]float64) *loadreport.Report {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r := &loadreport.Report{SchemaVersion: loadreport.SchemaVersion, RunID: "load", Tier: "regression", Nonce: "n0", Segments: []string{"1/1"},
		Workload: "default", WorkloadHash: "0123456789abcdef", StartedAt: start, FinishedAt: start.Add(time.Minute), Machine: machine(),
		Targets:   []loadreport.TargetInfo{{Label: "fs", Kind: "embedded", Transport: "http", Storage: "fs"}},
		Summaries: []loadreport.Summary{}, Comparisons: []loadreport.Comparison{}, Problems: []string{}, Verdict: loadreport.VerdictPass}
	for i, x := range rs {
		rec := metrics.NewRecorder(start, 1)
		calls := int(x[0])
		lat := time.Duration(x[1] * float64(time.Millisecond))
		for c := range calls {
			sent := start.Add(time.Duration(c) * time.Second / time.Duration(calls))
			rec.Record(0, metrics.Call{Op: "thought", Sent: sent, Done: sent.Add(lat)})
		}
		r.Phases = append(r.Phases, loadreport.PhaseResult{Name: "regression fs", Label: "fs", Round: i + 1, Users: 1, Target: "fs",
			Seconds: 1, Metrics: rec.Snapshot(start.Add(time.Second))})
	}
	return r
}

// writeRun writes a run directory with scorecard.json and, when r is not
// nil, load.json, and returns it.
func writeRun(t *testing.T, s scorecards.Scorecard, r *loadreport.Report) string {
	t.Helper()
	dir := t.TempDir()
	doc, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scorecard.json"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	if r != nil {
		doc, err := r.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "load.json"), doc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// open opens a run directory or fails the test.
func open(t *testing.T, path string) Run {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// mustGates parses a gate file or fails the test.
func mustGates(t *testing.T, text string) *Gates {
	t.Helper()
	g, err := ParseGates([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	g.Path = "gates.yml"
	return g
}

// near reports whether a and b agree to 1e-9.
func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
