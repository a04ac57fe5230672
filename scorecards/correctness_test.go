package scorecards

import (
	"strings"
	"testing"
)

func TestCorrectnessCountsRequiredLevelsOnly(t *testing.T) {
	in := []LevelResult{
		{Level: Quirk, Passed: 0, Failed: 5, Required: true},
		{Level: Intent, Passed: 9, Failed: 1, Required: true},
		{Level: Core, Passed: 18, Failed: 1, Skipped: 1, Required: true},
	}
	a := Correctness(in)
	// (18 + 9) / (20 + 10): the quirk failures do not count.
	wantScore(t, "score", a.Score, 0.9)
	if a.Name != AxisCorrectness || a.Weight != 0.25 {
		t.Fatalf("name %q weight %v, want correctness 0.25", a.Name, a.Weight)
	}
	var order []Level
	for _, l := range a.Levels {
		order = append(order, l.Level)
	}
	if len(order) != 3 || order[0] != Core || order[1] != Intent || order[2] != Quirk {
		t.Fatalf("levels ordered %v, want core intent quirk", order)
	}
	if a.Levels[2].Required {
		t.Fatal("quirk level kept Required: it must always be informational")
	}
	if !in[0].Required {
		t.Fatal("Correctness modified the caller's slice")
	}
	for _, want := range []string{"27 of 30 required scenarios passed", "2 failed, 1 skipped", "informational: quirk 0/5"} {
		if !strings.Contains(a.Summary, want) {
			t.Errorf("summary %q lacks %q", a.Summary, want)
		}
	}
}

func TestCorrectnessRequiredSkipCountsAsNotPassed(t *testing.T) {
	a := Correctness([]LevelResult{{Level: Core, Passed: 9, Skipped: 1, Required: true}})
	wantScore(t, "score", a.Score, 0.9)
}

func TestCorrectnessIgnoresInformationalLevels(t *testing.T) {
	a := Correctness([]LevelResult{
		{Level: Core, Passed: 10, Required: true},
		{Level: Intent, Failed: 7, Skipped: 3, Required: false},
	})
	wantScore(t, "score", a.Score, 1)
	if !strings.Contains(a.Summary, "informational: intent 0/10") {
		t.Fatalf("summary %q does not report the informational level", a.Summary)
	}
}

func TestCorrectnessWithoutRequiredScenariosIsNotMeasured(t *testing.T) {
	for name, levels := range map[string][]LevelResult{
		"none":              nil,
		"empty core":        {{Level: Core, Required: true}},
		"only quirk":        {{Level: Quirk, Passed: 4, Required: true}},
		"only not required": {{Level: Core, Passed: 4}},
	} {
		if a := Correctness(levels); a.Score != nil {
			t.Errorf("%s: score %v, want not measured", name, *a.Score)
		}
	}
}

func TestChecksAxisScoresShareOfPassedChecks(t *testing.T) {
	checks := []Check{{Name: "a", Passed: true}, {Name: "b", Passed: true}, {Name: "c", Passed: true}, {Name: "d"}}
	a := ChecksAxis(AxisRobustness, 0.15, checks)
	wantScore(t, "score", a.Score, 0.75)
	if a.Name != AxisRobustness || a.Weight != 0.15 || a.Summary != "3 of 4 checks passed" {
		t.Fatalf("axis %+v", a)
	}
	checks[0].Passed = false
	if !a.Checks[0].Passed {
		t.Fatal("ChecksAxis shares the caller's slice")
	}
	if e := ChecksAxis(AxisRobustness, 0.15, nil); e.Score != nil {
		t.Fatalf("no checks: score %v, want not measured", *e.Score)
	}
}

func TestChecksAxisLeavesOutChecksNotApplicable(t *testing.T) {
	checks := []Check{{Name: "a", Passed: true}, {Name: "b"}, {Name: "c", NotApplicable: true, Detail: "nothing to judge"},
		{Name: "d", Inconclusive: true, Detail: "straddles"}}
	a := ChecksAxis(AxisObservability, 0.15, checks)
	wantScore(t, "score", a.Score, 0.5)
	if a.Summary != "1 of 2 checks passed, 1 inconclusive, 1 not applicable" {
		t.Fatalf("summary %q", a.Summary)
	}
	if checks[3].Failed() || checks[2].Failed() || !checks[1].Failed() || checks[0].Failed() {
		t.Fatal("Failed: want only the judged check that did not pass")
	}
	none := ChecksAxis(AxisObservability, 0.15, checks[2:3])
	if none.Score != nil || none.Summary != "none of 1 checks applicable" {
		t.Fatalf("only a check not applicable: score %v summary %q, want not measured", none.Score, none.Summary)
	}
}

func TestDefaultWeightsSumToOne(t *testing.T) {
	var sum float64
	for _, n := range StandardAxes() {
		sum += DefaultWeight(n)
	}
	if !near(sum, 1) || len(StandardAxes()) != 7 {
		t.Fatalf("%d standard axes with weights summing to %v, want 7 and 1", len(StandardAxes()), sum)
	}
	if DefaultWeight(AxisPerformance) != 0.20 || DefaultWeight("custom") != 0 {
		t.Fatal("wrong default weight")
	}
}
