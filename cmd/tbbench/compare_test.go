package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// compareCard writes a finished scorecard of target fs with the given
// robustness score into a new run directory and returns the directory.
func compareCard(t *testing.T, robustness float64, cpu string) string {
	t.Helper()
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := scorecards.Scorecard{RunID: "run", StartedAt: start, FinishedAt: start.Add(time.Minute),
		Target:  scorecards.Target{Name: "fs", Kind: scorecards.TargetEmbedded, Transport: "http", Storage: "fs"},
		Harness: scorecards.Harness{Version: version, GoVersion: "go1.26.8"},
		Machine: scorecards.Machine{OS: "linux", Arch: "amd64", CPUModel: cpu, Cores: 2, GOMAXPROCS: 2},
		Axes:    []scorecards.Axis{{Name: scorecards.AxisRobustness, Score: &robustness, Weight: 0.15}}}
	s.Finish()
	doc, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "scorecard.json"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// quiet sends stdout to /dev/null for the rest of the test.
func quiet(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = null
	t.Cleanup(func() { os.Stdout = old; null.Close() })
}

func TestCompareExitStatus(t *testing.T) {
	quiet(t)
	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	base := compareCard(t, 0.98, "Test CPU")
	same := compareCard(t, 0.97, "Test CPU")
	worse := compareCard(t, 0.80, "Test CPU")
	elsewhere := compareCard(t, 0.50, "Other CPU")
	gates := filepath.Join(t.TempDir(), "gates.yml")
	os.WriteFile(gates, []byte("# floors\nrobustness: \">=0.975\"\n"), 0o644)
	badGates := filepath.Join(t.TempDir(), "bad.yml")
	os.WriteFile(badGates, []byte("robustness: \">=0.9\"\nspeed: fast\n"), 0o644)
	old := filepath.Join(t.TempDir(), "old.json")
	doc, _ := os.ReadFile(filepath.Join(base, "scorecard.json"))
	os.WriteFile(old, []byte(strings.Replace(string(doc), `"schemaVersion": "1"`, `"schemaVersion": "0"`, 1)), 0o644)

	for _, c := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no regression", []string{base, same}, 0, "no regression"},
		{"regression", []string{base, worse}, 1, "REGRESSION"},
		{"other machine", []string{base, elsewhere}, 0, "not comparable"},
		{"gate fails", []string{base, same, "--gate", gates}, 1, "REGRESSION"},
		{"gate file error", []string{"--gate", badGates, base, same}, 2, badGates + ":2: "},
		{"missing file", []string{base, filepath.Join(base, "nope")}, 2, "nope"},
		{"schema version", []string{old, same}, 2, `version "0"`},
		{"one argument", []string{base}, 2, "name the baseline and the current run"},
	} {
		code, stderr := capture(t, append([]string{"compare"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%s: exit %d, want %d; stderr %q lacks %q", c.name, code, c.code, stderr, c.msg)
		}
	}
	md, err := os.ReadFile(summary)
	if err != nil || strings.Count(string(md), "## tbbench compare:") != 4 {
		t.Fatalf("GITHUB_STEP_SUMMARY has %d reports, want 4 (%v)", strings.Count(string(md), "## tbbench compare:"), err)
	}
}

func TestBaselineSaveShowAndCompareWithDir(t *testing.T) {
	quiet(t)
	dir := filepath.Join(t.TempDir(), "baselines")
	if code, stderr := capture(t, "baseline", "save", "--dir", dir, compareCard(t, 0.98, "Test CPU")); code != 0 {
		t.Fatalf("save: exit %d: %s", code, stderr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), "fs-http-fs--test-cpu-2c2p-") {
		t.Fatalf("baselines %v", entries)
	}
	name := strings.TrimSuffix(entries[0].Name(), ".json")
	for _, args := range [][]string{{"show", "--dir", dir}, {"show", "--dir", dir, name}} {
		if code, stderr := capture(t, append([]string{"baseline"}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if code, stderr := capture(t, "baseline", "show", "--dir", dir, "nope"); code != 2 || !strings.Contains(stderr, "nope.json") {
		t.Fatalf("show nope: exit %d: %s", code, stderr)
	}
	if code, stderr := capture(t, "compare", "--baseline-dir", dir, compareCard(t, 0.80, "Test CPU")); code != 1 {
		t.Fatalf("compare --baseline-dir: exit %d: %s", code, stderr)
	}
	if code, stderr := capture(t, "compare", "--baseline-dir", dir, compareCard(t, 0.98, "Test CPU")); code != 0 {
		t.Fatalf("compare --baseline-dir: exit %d: %s", code, stderr)
	}
	if code, stderr := capture(t, "compare", "--baseline-dir", filepath.Join(dir, "none"), compareCard(t, 0.98, "Test CPU")); code != 2 || !strings.Contains(stderr, "none") {
		t.Fatalf("compare with a missing dir: exit %d: %s", code, stderr)
	}
}

// compareLoad writes a load.json of the regression tier into the run
// directory dir: target fs, one round per throughput (calls/s) in tputs,
// every call taking latMs[i] in round i.
func compareLoad(t *testing.T, dir string, tputs, latMs []float64) {
	t.Helper()
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	m := scorecards.Machine{OS: "linux", Arch: "amd64", CPUModel: "Test CPU", Cores: 2, GOMAXPROCS: 2}
	r := &loadreport.Report{SchemaVersion: loadreport.SchemaVersion, RunID: "load", Tier: "regression", Nonce: "n0", Segments: []string{"1/1"},
		Workload: "default", WorkloadHash: "0123456789abcdef", StartedAt: start, FinishedAt: start.Add(time.Minute), Machine: m,
		Targets:   []loadreport.TargetInfo{{Label: "fs", Kind: "embedded", Transport: "http", Storage: "fs"}},
		Summaries: []loadreport.Summary{}, Comparisons: []loadreport.Comparison{}, Problems: []string{}, Verdict: loadreport.VerdictPass}
	for i, tput := range tputs {
		rec := metrics.NewRecorder(start, 1)
		calls, lat := int(tput), time.Duration(latMs[i]*float64(time.Millisecond))
		for c := range calls {
			sent := start.Add(time.Duration(c) * time.Second / time.Duration(calls))
			rec.Record(0, metrics.Call{Op: "thought", Sent: sent, Done: sent.Add(lat)})
		}
		r.Phases = append(r.Phases, loadreport.PhaseResult{Name: "regression fs", Label: "fs", Round: i + 1, Users: 1, Target: "fs",
			Seconds: 1, Metrics: rec.Snapshot(start.Add(time.Second))})
	}
	doc, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "load.json"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCompareExitStatusOverRounds: with 3 rounds a side no load figure can
// detect a difference, however large: the comparison judged nothing and
// exits 2, saying so in the first line of stdout and stderr. With 6 rounds
// a clear shift is a regression (1) and the same figures are none (0).
func TestCompareExitStatusOverRounds(t *testing.T) {
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	run := func(robustness float64, tputs, latMs []float64) string {
		dir := compareCard(t, robustness, "Test CPU")
		compareLoad(t, dir, tputs, latMs)
		return dir
	}
	base3 := run(0.98, []float64{800, 810, 790}, []float64{5, 5.1, 4.9})
	half3 := run(0.98, []float64{400, 405, 395}, []float64{10, 10.2, 9.8})
	worseScore3 := run(0.80, []float64{800, 810, 790}, []float64{5, 5.1, 4.9})
	base6 := run(0.98, []float64{800, 810, 790, 805, 795, 800}, []float64{5, 5.1, 4.9, 5.05, 4.95, 5})
	shifted6 := run(0.98, []float64{560, 567, 553, 563, 556, 560}, []float64{6.5, 6.6, 6.4, 6.55, 6.45, 6.5}) // −30 %, +30 %
	same6 := run(0.98, []float64{798, 812, 791, 803, 796, 801}, []float64{5.02, 5.08, 4.93, 5.04, 4.96, 5.01})

	for _, c := range []struct {
		name      string
		base, cur string
		code      int
		first     string // the first line of stdout, after "## tbbench compare: "
	}{
		{"3 rounds", base3, half3, 2, "nothing judged: none of the 3 load figures can detect a difference — 3 rounds against 3: the U test cannot reach p < 0.05 (smallest possible p 0.100), at least 4 against 4 are needed"},
		{"3 rounds, a score regression", base3, worseScore3, 1, "REGRESSION (1); none of the 3 load figures can detect a difference — 3 rounds against 3: "},
		{"6 rounds, 30 % worse", base6, shifted6, 1, "REGRESSION (3)"},
		{"6 rounds, the same", base6, same6, 0, "no regression"},
	} {
		code, stdout, stderr := captureAll(t, "compare", c.base, c.cur)
		first, _, _ := strings.Cut(stdout, "\n")
		if code != c.code || !strings.HasPrefix(first, "## tbbench compare: "+c.first) || !strings.HasPrefix(stderr, "tbbench compare: "+c.first) {
			t.Errorf("%s: exit %d, want %d\nstdout starts %q\nstderr %q\nwant them to start with %q", c.name, code, c.code, first, stderr, c.first)
		}
		if c.code == 0 && strings.Contains(stdout, "cannot detect: too few rounds") {
			t.Errorf("%s: a figure cannot detect:\n%s", c.name, stdout)
		}
	}
}
