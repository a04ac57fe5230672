package scorecards

import (
	"strings"
	"testing"
)

// levelsCard returns a finished scorecard whose correctness axis has the
// given levels.
func levelsCard(levels ...LevelResult) Scorecard {
	s := Scorecard{Machine: testMachine(), Axes: []Axis{Correctness(levels)}}
	s.Finish()
	return s
}

// axisCard returns a finished scorecard with one observability axis scoring
// v.
func axisCard(v float64) Scorecard {
	s := Scorecard{Machine: testMachine(), Axes: []Axis{{Name: AxisObservability, Score: ptr(v), Weight: 0.15}}}
	s.Finish()
	return s
}

func TestCompareEqualHasNoRegression(t *testing.T) {
	s := sample()
	s.Finish()
	c := compare(s, s)
	if !c.Comparable || len(c.Regressions) != 0 || len(c.Notes) != 0 {
		t.Fatalf("comparison with itself: %+v", c)
	}
	if len(c.Deltas) != 7+3 {
		t.Fatalf("%d deltas, want 7 axes and 3 levels", len(c.Deltas))
	}
}

func TestCompareAxisThreshold(t *testing.T) {
	if c := compare(axisCard(0.90), axisCard(0.85)); len(c.Regressions) != 0 {
		t.Fatalf("a drop of exactly 5 pp is a regression: %+v", c.Regressions)
	}
	if c := compare(axisCard(0.50), axisCard(0.90)); len(c.Regressions) != 0 {
		t.Fatalf("an improvement is a regression: %+v", c.Regressions)
	}
	c := compare(axisCard(0.90), axisCard(0.84))
	if len(c.Regressions) != 1 {
		t.Fatalf("regressions %+v, want one", c.Regressions)
	}
	r := c.Regressions[0]
	if r.Kind != KindAxis || r.Name != AxisObservability || !near(r.Drop(), 0.06) {
		t.Fatalf("regression %+v", r)
	}
}

func TestCompareRequiredLevelPassRate(t *testing.T) {
	// The correctness score is 90/100 in both runs, but @core lost 6 pp.
	base := levelsCard(
		LevelResult{Level: Core, Passed: 50, Required: true},
		LevelResult{Level: Intent, Passed: 40, Failed: 10, Required: true},
		LevelResult{Level: Quirk, Passed: 10},
	)
	cur := levelsCard(
		LevelResult{Level: Core, Passed: 47, Skipped: 3, Required: true},
		LevelResult{Level: Intent, Passed: 43, Failed: 7, Required: true},
		LevelResult{Level: Quirk, Passed: 0, Failed: 10},
	)
	c := compare(base, cur)
	if len(c.Regressions) != 1 {
		t.Fatalf("regressions %+v, want only the core level", c.Regressions)
	}
	if r := c.Regressions[0]; r.Kind != KindLevel || r.Name != string(Core) || !near(r.Baseline, 1) || !near(r.Current, 0.94) {
		t.Fatalf("regression %+v", r)
	}
	if d := findDelta(c, KindLevel, string(Quirk)); d == nil || !near(*d.Baseline, 1) || !near(*d.Current, 0) {
		t.Fatalf("informational level missing from the deltas: %+v", c.Deltas)
	}
}

func TestCompareIncomparableMachinesAreNotGated(t *testing.T) {
	base, cur := axisCard(1), axisCard(0.2)
	cur.Machine.GOMAXPROCS = 4
	c := compare(base, cur)
	if c.Comparable || len(c.Regressions) != 0 {
		t.Fatalf("different GOMAXPROCS: comparable %v, regressions %+v", c.Comparable, c.Regressions)
	}
	if len(c.Notes) == 0 || !strings.Contains(c.Notes[0], "incomparable") {
		t.Fatalf("notes %q", c.Notes)
	}
	if !strings.Contains(strings.Join(c.Notes, "\n"), "GOMAXPROCS 4") {
		t.Fatalf("the notes do not name the difference: %q", c.Notes)
	}
	for _, change := range []func(m *Machine){
		func(m *Machine) { m.CPUModel = "Other CPU" },
		func(m *Machine) { m.Cores = 16 },
	} {
		cur := axisCard(1)
		change(&cur.Machine)
		if compare(base, cur).Comparable {
			t.Errorf("machine %+v comparable with %+v", cur.Machine, base.Machine)
		}
	}
}

func TestCompareOtherMachineDifferencesAreNotes(t *testing.T) {
	base, cur := axisCard(0.9), axisCard(0.5)
	cur.Machine.Kernel = "6.8.0"
	cur.Machine.MemoryBytes = 8 << 30
	c := compare(base, cur)
	if !c.Comparable || len(c.Regressions) != 1 {
		t.Fatalf("kernel and memory changes must not make runs incomparable: %+v", c)
	}
	notes := strings.Join(c.Notes, "\n")
	if !strings.Contains(notes, `kernel differs: baseline "6.1.0-test", this run "6.8.0"`) || !strings.Contains(notes, "memory differs") {
		t.Fatalf("notes %q", c.Notes)
	}
}

func TestCompareAxisNoLongerMeasuredIsANote(t *testing.T) {
	base := axisCard(0.9)
	cur := levelsCard(LevelResult{Level: Core, Passed: 1, Required: true})
	c := compare(base, cur)
	if len(c.Regressions) != 0 {
		t.Fatalf("regressions %+v", c.Regressions)
	}
	notes := strings.Join(c.Notes, "\n")
	for _, want := range []string{
		"axis observability was measured in the baseline but not in this run",
		"axis correctness is measured in this run but not in the baseline",
		"level core is measured in this run but not in the baseline",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q: %q", want, c.Notes)
		}
	}
}

func TestCompareLimits(t *testing.T) {
	base, cur := axisCard(0.90), axisCard(0.87)
	if c := compare(base, cur); len(c.Regressions) != 0 {
		t.Fatalf("3 pp regress by default: %+v", c.Regressions)
	}
	c := CompareLimits(base, cur, Limits{Axes: map[string]float64{AxisObservability: 0.02}})
	if len(c.Regressions) != 1 || !near(c.Regressions[0].Limit, 0.02) || !c.Deltas[0].Gated {
		t.Fatalf("limit of 2 pp: %+v", c)
	}
	// A limit gates an informational level.
	lb := levelsCard(LevelResult{Level: Quirk, Passed: 10})
	lc := levelsCard(LevelResult{Level: Quirk, Passed: 5, Failed: 5})
	if len(compare(lb, lc).Regressions) != 0 || len(CompareLimits(lb, lc, Limits{Levels: map[Level]float64{Quirk: 0.1}}).Regressions) != 1 {
		t.Fatal("a level limit does not gate the quirk level")
	}
}

// compare is CompareLimits without limits of its own.
func compare(baseline, current Scorecard) Comparison {
	return CompareLimits(baseline, current, Limits{})
}

// findDelta returns the delta of a figure, or nil.
func findDelta(c Comparison, kind, name string) *Delta {
	for i, d := range c.Deltas {
		if d.Kind == kind && d.Name == name {
			return &c.Deltas[i]
		}
	}
	return nil
}
