package conform

import (
	"context"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
)

func TestStabilityNamesFlakyScenarios(t *testing.T) {
	run := func(statuses ...string) Report {
		r := Report{Levels: levels(nil, []string{"core"})}
		for i, s := range statuses {
			if s == "" {
				continue
			}
			r.Scenarios = append(r.Scenarios, ScenarioResult{Feature: "f.feature", Name: string(rune('a' + i)), Level: "core", Status: s})
		}
		return r
	}
	// a: constant; b: flaky; c: not applicable throughout; d: missing once.
	s := stabilityOf([]Report{
		run(Passed, Passed, NotApplicable, Passed),
		run(Passed, Failed, NotApplicable, ""),
		run(Passed, Passed, NotApplicable, Passed),
	})
	if s.Runs != 3 || len(s.Scenarios) != 4 {
		t.Fatalf("stability %+v", s)
	}
	var flaky []string
	for _, sc := range s.Flaky() {
		flaky = append(flaky, sc.Name+": "+sc.Describe())
	}
	if got := strings.Join(flaky, "; "); got != "b: passed, failed, passed; d: passed, missing, passed" {
		t.Errorf("flaky: %s", got)
	}
	ax := s.Axes()
	if len(ax) != 1 || ax[0].Score == nil || *ax[0].Score != 1.0/3 || len(ax[0].Checks) != 3 {
		t.Fatalf("axis %+v", ax)
	}
	if (Stability{Runs: 1}).Axes() != nil {
		t.Error("one run measured stability")
	}
}

// TestRepeatRunsTheScenariosKTimes repeats a few scenarios against the
// reference server: every run passes and none is flaky.
func TestRepeatRunsTheScenariosKTimes(t *testing.T) {
	tg, err := embedded.New(context.Background(), embedded.Options{Storage: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	runs := 0
	rep, s, err := Repeat(context.Background(), Options{Target: tg, OutDir: t.TempDir(), Required: []string{"core"}, Tags: "@validation"}, 2,
		func(int, Report) { runs++ })
	if err != nil {
		t.Fatal(err)
	}
	if runs != 2 || s.Runs != 2 || len(rep.Scenarios) == 0 || !s.RequiredPassed {
		t.Fatalf("%d runs, stability %+v", runs, s)
	}
	if f := s.Flaky(); len(f) > 0 {
		t.Errorf("flaky: %+v", f)
	}
	if ax := s.Axes(); len(ax) != 1 || *ax[0].Score != 1 {
		t.Errorf("axis %+v", ax)
	}
}
