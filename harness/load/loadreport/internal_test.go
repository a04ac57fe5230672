package loadreport

import (
	"math"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

func TestStatAndRatio(t *testing.T) {
	s := stat([]float64{10})
	if s.Median != 10 || s.Low != 10 || s.High != 10 || !s.RangeOnly {
		t.Errorf("one value: %+v", s)
	}
	s = stat([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	if s.RangeOnly || s.Low > s.Median || s.High < s.Median || s.Low < 1 || s.High > 12 {
		t.Errorf("twelve values: %+v", s)
	}
	vals := map[string]map[int][2]float64{"a": {1: {80, 1}, 2: {90, 2}}, "b": {1: {100, 1}, 2: {100, 4}}}
	c := compare("throughput", "a", "b", vals, 0)
	if c.Ratio.N != 2 || c.Ratio.Low != 0.8 || c.Ratio.High != 0.9 {
		t.Errorf("ratio %+v", c.Ratio)
	}
}

func TestMarkdownTablesBecomeHTMLTables(t *testing.T) {
	md := "# T\n\n## Errors\n\n| a | b |\n|---|---|\n| 1 | x \\| y |\n| 2 | z |\n\ntext\n| c |\n|---|\n| 3 |\n"
	ts := markdownTables(md)
	if len(ts) != 2 || ts[0].title != "Errors" || len(ts[0].rows) != 2 || ts[0].rows[0][1] != "x | y" || ts[1].rows[0][0] != "3" {
		t.Fatalf("%+v", ts)
	}
}

// TestScorecardAxes scores a report with known figures: ratios to the
// ceiling, never absolute milliseconds.
func TestScorecardAxes(t *testing.T) {
	r := &Report{Tier: workload.Regression, Targets: []TargetInfo{{Label: "memory", Kind: "embedded"}, {Label: CeilingLabel, Kind: "noop"}},
		Ratios: []Ratio{
			{Subject: "memory", Versus: "ceiling", Reference: CeilingLabel, Figure: "cpu_per_call", Estimate: 2.5, Low: 2.4, High: 2.6, Bounded: true, Rounds: []float64{2.4, 2.6}},
			{Subject: "memory", Versus: "ceiling", Reference: CeilingLabel, Op: "thought", Figure: "p(99)", Estimate: 4, Low: 3, High: 5, Bounded: true, Rounds: []float64{3, 5}},
			{Subject: "memory", Versus: "ceiling", Reference: CeilingLabel, Figure: "throughput", Estimate: 0.5, Rounds: []float64{0.5}},
		},
		Summaries: []Summary{{Label: "memory", ThoughtP99Ms: Stat{Median: 10, N: 3}}}}
	c := r.Scorecard(scorecards.Harness{})
	a, ok := c.Axis(scorecards.AxisPerformance)
	if !ok || a.Score == nil {
		t.Fatal("no performance axis")
	}
	// memory's CPU per call is 2.5× the ceiling's against 1.25 (0.5), its
	// thought p99 4× against 2 (0.5): the geometric mean is 0.5; the
	// throughput share at a fixed rate is no item.
	if math.Abs(*a.Score-0.5) > 1e-9 || len(a.Checks) != 2 || a.Checks[0].Passed || a.Checks[1].Passed {
		t.Errorf("performance %v %+v", *a.Score, a.Checks)
	}
	if c.Target.Name != "memory" {
		t.Errorf("target %+v", c.Target)
	}
	lost := false
	for _, g := range c.Gates {
		if g.Name == GateNoLoss {
			lost = !g.Passed
		}
	}
	if lost {
		t.Error("no loss gate failed without losses")
	}
	r.Phases = []PhaseResult{{Name: "p", Verification: &Verification{Applicable: true, Acknowledged: 3, Missing: 1}}}
	for _, g := range r.Scorecard(scorecards.Harness{}).Gates {
		if g.Name == GateNoLoss && g.Passed {
			t.Error("a lost thought passed the gate")
		}
	}
}

// TestPerformanceChecksAreJudgedOnTheirIntervals: a ratio to the ceiling
// passes its limit when its whole interval is at or below it, fails when
// all of it is above, and is inconclusive when it straddles the limit or
// has no interval (one round).
func TestPerformanceChecksAreJudgedOnTheirIntervals(t *testing.T) {
	cpu := func(subject string, est, low, high float64, rounds ...float64) Ratio {
		return Ratio{Subject: subject, Versus: "ceiling", Reference: CeilingLabel, Figure: "cpu_per_call",
			Estimate: est, Low: low, High: high, Bounded: len(rounds) > 1, Rounds: rounds}
	}
	r := &Report{Tier: workload.Regression, Targets: []TargetInfo{{Label: "memory", Kind: "embedded"}, {Label: CeilingLabel, Kind: "noop"}},
		Ratios: []Ratio{
			cpu("below", 1.85, 1.8, 1.9, 1.8, 1.9),
			cpu("straddling", 1.95, 1.9, 2.1, 1.9, 2.1),
			cpu("above", 2.15, 2.1, 2.2, 2.1, 2.2),
			cpu("one round", 1.0, 0, 0, 1.0),
		}}
	a, ok := r.Scorecard(scorecards.Harness{}).Axis(scorecards.AxisPerformance)
	if !ok || len(a.Checks) != 4 {
		t.Fatalf("performance axis %+v", a)
	}
	want := []string{"passed", "inconclusive", "failed", "inconclusive"}
	for i, c := range a.Checks {
		got := "failed"
		switch {
		case c.Passed:
			got = "passed"
		case c.Inconclusive:
			got = "inconclusive"
		}
		if got != want[i] {
			t.Errorf("%s (%s): %s, want %s", c.Name, c.Detail, got, want[i])
		}
	}
}

// load.md names the file system of each subject's data directory once per
// file system, with the subjects on it, and says what no journal costs.
func TestMarkdownNamesTheDataFilesystems(t *testing.T) {
	r := &Report{Tier: workload.Regression, Targets: []TargetInfo{
		{Label: "memory", Kind: "embedded", DataFilesystem: "ext4 without a journal on /dev/vda"},
		{Label: "fs", Kind: "embedded", DataFilesystem: "ext4 without a journal on /dev/vda"},
		{Label: "other", Kind: "command", DataFilesystem: "xfs on /dev/sdb1"},
		{Label: CeilingLabel, Kind: "noop"},
	}}
	md := r.Markdown()
	for _, want := range []string{
		"Data directories of memory, fs: ext4 without a journal on /dev/vda. Without a journal, ext4 does not reuse",
		"Data directories of other: xfs on /dev/sdb1.\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("load.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "Data directories of") != 2 || strings.Contains(md, "of "+CeilingLabel) {
		t.Errorf("load.md names the data directories %d times (want 2, not the ceiling's):\n%s", strings.Count(md, "Data directories of"), md)
	}
}
