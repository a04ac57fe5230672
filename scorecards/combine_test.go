package scorecards

import "testing"

func TestCombineSumsLevelsAndKeepsTheWorstAxis(t *testing.T) {
	score := func(v float64) *float64 { return &v }
	cell := func(run, storage string, passed, failed int, obs float64) Scorecard {
		c := Scorecard{RunID: run, Target: Target{Kind: TargetEmbedded, Transport: "http", Storage: storage},
			Axes: []Axis{Correctness([]LevelResult{{Level: Core, Passed: passed, Failed: failed, Required: true}}),
				{Name: AxisObservability, Score: score(obs), Weight: 0.15, Checks: []Check{{Name: "counts", Passed: obs == 1}}}}}
		c.Finish()
		return c
	}
	load := Scorecard{RunID: "load", Target: Target{Kind: TargetEmbedded, Transport: "http", Storage: "fs"},
		Axes:  []Axis{{Name: AxisPerformance, Score: score(0.7), Weight: 0.2}},
		Gates: []Gate{{Name: "no acknowledged thought lost", Passed: false}}}
	c := Combine("all", []Scorecard{cell("a", "fs", 10, 0, 1), cell("b", "memory", 9, 1, 0.5), load})
	corr, _ := c.Axis(AxisCorrectness)
	if corr.Levels[0].Passed != 19 || corr.Levels[0].Failed != 1 || *corr.Score != 0.95 {
		t.Errorf("correctness %+v", corr)
	}
	obs, _ := c.Axis(AxisObservability)
	if *obs.Score != 0.5 || len(obs.Checks) != 2 || obs.Checks[0].Name != "a: counts" {
		t.Errorf("observability %+v", obs)
	}
	if perf, _ := c.Axis(AxisPerformance); *perf.Score != 0.7 {
		t.Errorf("performance %+v", perf)
	}
	if c.Target.Storage != "fs+memory" || c.Verdict != VerdictFail {
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
