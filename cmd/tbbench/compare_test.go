package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
