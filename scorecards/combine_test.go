package scorecards

import (
	"fmt"
	"strings"
	"testing"
)

func TestCombineSumsLevelsAndKeepsTheWorstAxis(t *testing.T) {
	score := func(v float64) *float64 { return &v }
	cell := func(run, storage string, passed, failed int, obs float64) Scorecard {
		c := Scorecard{RunID: run, Target: Target{Kind: TargetEmbedded, Transport: "http", Storage: storage},
			Axes: []Axis{Correctness([]LevelResult{{Level: Core, Passed: passed, Failed: failed, Required: true}}),
				{Name: AxisObservability, Score: score(obs), Weight: 0.15, Checks: []Check{{Name: "counts", Passed: obs == 1}},
					Summary: run + "'s counts"}}}
		c.Finish()
		return c
	}
	load := Scorecard{RunID: "load", Target: Target{Kind: TargetEmbedded, Transport: "http", Storage: "fs"},
		Axes:  []Axis{{Name: AxisPerformance, Score: score(0.7), Weight: 0.2}},
		Gates: []Gate{{Name: "no acknowledged thought lost", Passed: false}}}
	c := Combine("all", []Scorecard{cell("a", "fs", 10, 0, 1), cell("b", "memory", 9, 1, 0.5), cell("c", "sqlite", 1, 0, 0.5), load})
	corr, _ := c.Axis(AxisCorrectness)
	if corr.Levels[0].Passed != 20 || corr.Levels[0].Failed != 1 || *corr.Score != 20.0/21 {
		t.Errorf("correctness %+v", corr)
	}
	obs, _ := c.Axis(AxisObservability)
	if *obs.Score != 0.5 || len(obs.Checks) != 3 || obs.Checks[0].Name != "a: counts" {
		t.Errorf("observability %+v", obs)
	}
	// The summary is the lowest run's (the first of a tie), named.
	if want := "lowest of 3 runs, b: b's counts"; obs.Summary != want {
		t.Errorf("observability summary %q, want %q", obs.Summary, want)
	}
	if perf, _ := c.Axis(AxisPerformance); *perf.Score != 0.7 {
		t.Errorf("performance %+v", perf)
	}
	if c.Target.Storage != "fs+memory+sqlite" || c.Verdict != VerdictFail {
		t.Errorf("target %+v verdict %s", c.Target, c.Verdict)
	}
	found := false
	for _, g := range c.Gates {
		found = found || g.Name == "load: no acknowledged thought lost"
	}
	if !found {
		t.Errorf("the load's gate is missing: %+v", c.Gates)
	}
}

// TestCombineNamesOnce checks that a gate or check of a run combined
// before, already named after it, is not named after it again.
func TestCombineNamesOnce(t *testing.T) {
	one := 1.0
	era := Scorecard{RunID: "cell era 2025-11-25", Axes: []Axis{{Name: AxisObservability, Score: &one, Weight: 0.15,
		Checks: []Check{{Name: "counts", Passed: true}}}}, Gates: []Gate{{Name: "counts equal", Passed: true}}}
	cell := Combine("cell", []Scorecard{era})
	cell.RunID = "cell"
	all := Combine("all", []Scorecard{cell, {RunID: "cellar", Gates: []Gate{{Name: "cell: x", Passed: true}}}})
	var names []string
	for _, g := range all.Gates {
		if !isComputedGate(g.Name) {
			names = append(names, g.Name)
		}
	}
	want := []string{"cell era 2025-11-25: counts equal", "cellar: cell: x"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("gates %q, want %q", names, want)
	}
	obs, _ := all.Axis(AxisObservability)
	if len(obs.Checks) != 1 || obs.Checks[0].Name != "cell era 2025-11-25: counts" {
		t.Errorf("checks %+v", obs.Checks)
	}
}

// Cells whose eras were combined first, combined again: the summary counts
// every era's run and names the lowest alone, one "lowest of" deep.
func TestCombineSummaryOfCombinedRunsIsFlat(t *testing.T) {
	era := func(cell, era string, score float64) Scorecard {
		return Scorecard{RunID: cell + " era " + era, Axes: []Axis{{Name: AxisRobustness, Score: &score, Weight: 0.15,
			Summary: fmt.Sprintf("%.0f%% of inputs refused", score*100)}}}
	}
	cell := func(name string, a, b float64) Scorecard {
		c := Combine(name, []Scorecard{era(name, "2025-11-25", a), era(name, "2026-07-28", b)})
		c.RunID = name
		return c
	}
	all := Combine("all", []Scorecard{cell("fs", 1, 1), cell("memory", 1, 0.9), cell("sqlite", 0.95, 1), era("stdio", "2025-11-25", 1)})
	rob, _ := all.Axis(AxisRobustness)
	if want := "lowest of 7 runs, memory era 2026-07-28: 90% of inputs refused"; rob.Summary != want {
		t.Errorf("summary %q, want %q", rob.Summary, want)
	}
}
