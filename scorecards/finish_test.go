package scorecards

import (
	"slices"
	"strings"
	"testing"
)

// gate returns the named gate of s.
func gate(t *testing.T, s Scorecard, name string) Gate {
	t.Helper()
	for _, g := range s.Gates {
		if g.Name == name {
			return g
		}
	}
	t.Fatalf("no gate %q in %+v", name, s.Gates)
	return Gate{}
}

func TestFinishNormalisesOverMeasuredAxes(t *testing.T) {
	s := Scorecard{Axes: []Axis{
		{Name: "custom", Score: ptr(0), Weight: 0},
		{Name: AxisObservability, Score: ptr(0.5), Weight: 0.15},
		{Name: AxisCorrectness, Score: ptr(1), Weight: 0.25},
	}}
	s.Finish()
	// (0.25·1 + 0.15·0.5) / (0.25 + 0.15); the weightless custom axis and
	// the unmeasured standard axes do not count.
	wantScore(t, "overall", s.Overall, 0.8125)
	var names []string
	for _, a := range s.Axes {
		names = append(names, a.Name)
	}
	want := append(StandardAxes(), "custom")
	if !slices.Equal(names, want) {
		t.Fatalf("axes %v, want %v", names, want)
	}
	perf, _ := s.Axis(AxisPerformance)
	if perf.Measured() || perf.Weight != 0.20 {
		t.Fatalf("added performance axis %+v, want unmeasured with weight 0.20", perf)
	}
	if s.SchemaVersion != "1" {
		t.Fatalf("schema version %q", s.SchemaVersion)
	}
}

func TestFinishOverallWithEveryAxisIsTheSection57Sum(t *testing.T) {
	scores := map[string]float64{
		AxisCorrectness: 1, AxisRobustness: 0.8, AxisConformance: 0.6, AxisPerformance: 0.5,
		AxisStability: 0.2, AxisObservability: 0.4, AxisSecurity: 1,
	}
	var s Scorecard
	for n, v := range scores {
		s.Axes = append(s.Axes, Axis{Name: n, Score: ptr(v), Weight: DefaultWeight(n)})
	}
	s.Finish()
	want := 0.25*1 + 0.15*0.8 + 0.10*0.6 + 0.20*0.5 + 0.05*0.2 + 0.15*0.4 + 0.10*1
	wantScore(t, "overall", s.Overall, want)
}

func TestFinishWithoutMeasuredAxesHasNoOverall(t *testing.T) {
	s := Scorecard{}
	s.Finish()
	if s.Overall != nil {
		t.Fatalf("overall %v, want nil", *s.Overall)
	}
	if s.Verdict != VerdictFail {
		t.Fatalf("verdict %q for a run that measured nothing, want fail", s.Verdict)
	}
	if g := gate(t, s, GateCorrectness); g.Passed || g.Detail != "correctness not measured" {
		t.Fatalf("correctness gate %+v", g)
	}
	if g := gate(t, s, GateRequiredLevels); g.Passed {
		t.Fatalf("required levels gate %+v passed without levels", g)
	}
}

func TestFinishGatesAndVerdict(t *testing.T) {
	cases := []struct {
		name           string
		levels         []LevelResult
		levelsPass     bool
		correctnessMin bool
	}{
		{"all pass, quirk fails", []LevelResult{
			{Level: Core, Passed: 20, Required: true},
			{Level: Intent, Passed: 5, Required: true},
			{Level: Quirk, Failed: 3, Required: true},
		}, true, true},
		{"exactly 95% with a failure", []LevelResult{{Level: Core, Passed: 19, Failed: 1, Required: true}}, false, true},
		{"a skip fails the levels gate only", []LevelResult{{Level: Core, Passed: 99, Skipped: 1, Required: true}}, false, true},
		{"below 95%", []LevelResult{{Level: Core, Passed: 9, Failed: 1, Required: true}}, false, false},
		{"informational intent failures", []LevelResult{
			{Level: Core, Passed: 10, Required: true},
			{Level: Intent, Failed: 10},
		}, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Scorecard{Axes: []Axis{Correctness(tc.levels)}}
			s.Finish()
			if g := gate(t, s, GateRequiredLevels); g.Passed != tc.levelsPass {
				t.Errorf("required levels gate %+v, want passed=%v", g, tc.levelsPass)
			}
			if g := gate(t, s, GateCorrectness); g.Passed != tc.correctnessMin {
				t.Errorf("correctness gate %+v, want passed=%v", g, tc.correctnessMin)
			}
			want := VerdictFail
			if tc.levelsPass && tc.correctnessMin {
				want = VerdictPass
			}
			if s.Verdict != want {
				t.Errorf("verdict %q, want %q", s.Verdict, want)
			}
			if len(s.Gates) != 2 {
				t.Errorf("gates %+v, want the two computed ones (security not measured)", s.Gates)
			}
		})
	}
}

func TestFinishRequiredLevelsGateNamesTheFailures(t *testing.T) {
	s := Scorecard{Axes: []Axis{Correctness([]LevelResult{
		{Level: Core, Passed: 10, Required: true},
		{Level: Intent, Passed: 8, Failed: 1, Skipped: 2, Required: true},
	})}}
	s.Finish()
	if g := gate(t, s, GateRequiredLevels); g.Detail != "intent: 1 failed, 2 skipped" {
		t.Fatalf("detail %q", g.Detail)
	}
}

func TestFinishSecurityGate(t *testing.T) {
	good := []LevelResult{{Level: Core, Passed: 10, Required: true}}
	leak := ChecksAxis(AxisSecurity, DefaultWeight(AxisSecurity), []Check{
		{Name: "metrics", Passed: true}, {Name: "debug log", Passed: false},
	})
	s := Scorecard{Axes: []Axis{Correctness(good), leak}}
	s.Finish()
	g := gate(t, s, GateSecurity)
	if g.Passed || g.Detail != "failed: debug log" || s.Verdict != VerdictFail {
		t.Fatalf("gate %+v verdict %q, want a failed security gate naming the leak", g, s.Verdict)
	}
	clean := ChecksAxis(AxisSecurity, DefaultWeight(AxisSecurity), []Check{{Name: "metrics", Passed: true}})
	s = Scorecard{Axes: []Axis{Correctness(good), clean}}
	s.Finish()
	if g := gate(t, s, GateSecurity); !g.Passed || s.Verdict != VerdictPass {
		t.Fatalf("gate %+v verdict %q, want pass", g, s.Verdict)
	}
}

func TestFinishKeepsCallerGatesAndIsIdempotent(t *testing.T) {
	s := Scorecard{
		Axes:  []Axis{Correctness([]LevelResult{{Level: Core, Passed: 10, Required: true}})},
		Gates: []Gate{{Name: "custom", Passed: true, Detail: "ok"}},
	}
	s.Finish()
	if s.Verdict != VerdictPass {
		t.Fatalf("verdict %q, gates %+v", s.Verdict, s.Gates)
	}
	s.Gates = append(s.Gates, Gate{Name: "no regression against baseline", Passed: false, Detail: "core −6 pp"})
	s.Finish()
	s.Finish()
	var names []string
	for _, g := range s.Gates {
		names = append(names, g.Name)
	}
	want := []string{GateRequiredLevels, GateCorrectness, "custom", "no regression against baseline"}
	if !slices.Equal(names, want) {
		t.Fatalf("gates %v, want %v", names, want)
	}
	if s.Verdict != VerdictFail {
		t.Fatalf("verdict %q with a failed caller gate, want fail", s.Verdict)
	}
}

// An inconclusive gate makes the verdict inconclusive unless another gate
// failed; it is never a pass.
func TestFinishInconclusiveGate(t *testing.T) {
	passing := []LevelResult{{Level: Core, Passed: 20, Required: true}}
	unsure := Gate{Name: "load thresholds met", Inconclusive: true, Detail: "the machine could not sustain 800 calls/s"}
	s := Scorecard{Axes: []Axis{Correctness(passing)}, Gates: []Gate{unsure}}
	s.Finish()
	if s.Verdict != VerdictInconclusive {
		t.Fatalf("verdict %q with an inconclusive gate, want inconclusive", s.Verdict)
	}
	if g := gate(t, s, unsure.Name); g.Failed() || g.Result() != "inconclusive" {
		t.Fatalf("gate %+v: failed %v, result %q", g, g.Failed(), g.Result())
	}
	failing := []LevelResult{{Level: Core, Passed: 9, Failed: 1, Required: true}}
	s = Scorecard{Axes: []Axis{Correctness(failing)}, Gates: []Gate{unsure}}
	s.Finish()
	if s.Verdict != VerdictFail {
		t.Fatalf("verdict %q with a failed and an inconclusive gate, want fail", s.Verdict)
	}
	if md := s.Markdown(); !strings.Contains(md, "| load thresholds met | inconclusive |") {
		t.Fatalf("markdown gate row missing:\n%s", md)
	}
}

// A run that set out to measure something other than correctness (a load
// tier, the robustness catalogue, the official suite) is judged by its own
// gates; a conformance run that judged nothing, and a run that measured
// nothing, still fail; and a combination keeps a conformance run's failure.
func TestFinishJudgesCorrectnessOnlyWhereMeasuredOrMeant(t *testing.T) {
	perf := Axis{Name: AxisPerformance, Score: ptr(0.9), Weight: DefaultWeight(AxisPerformance)}
	ok := Gate{Name: "load thresholds met", Passed: true}
	load := Scorecard{Axes: []Axis{perf}, Gates: []Gate{ok}}
	load.Finish()
	if load.Verdict != VerdictPass {
		t.Fatalf("a load run whose gates passed: verdict %q, gates %+v", load.Verdict, load.Gates)
	}
	for _, g := range load.Gates {
		if g.Name == GateCorrectness || g.Name == GateRequiredLevels {
			t.Fatalf("a load run got the correctness gate %+v", g)
		}
	}
	load.Finish() // again: the axes Finish added do not make correctness judged
	if load.Verdict != VerdictPass || len(load.Gates) != 1 {
		t.Fatalf("finished twice: verdict %q, gates %+v", load.Verdict, load.Gates)
	}

	// A load tier the machine could not sustain measured no axis: its own
	// gate says it could not tell.
	busy := Scorecard{Gates: []Gate{{Name: "load thresholds met", Inconclusive: true}}}
	busy.Finish()
	if busy.Verdict != VerdictInconclusive {
		t.Fatalf("a run that measured nothing but could not tell: verdict %q, gates %+v", busy.Verdict, busy.Gates)
	}

	nothingRan := Scorecard{Axes: []Axis{Correctness(nil), perf}, Gates: []Gate{ok}}
	nothingRan.Finish()
	if nothingRan.Verdict != VerdictFail || gate(t, nothingRan, GateCorrectness).Passed {
		t.Fatalf("a conformance run that judged no scenario: verdict %q, gates %+v", nothingRan.Verdict, nothingRan.Gates)
	}

	combined := Combine("all", []Scorecard{nothingRan, load})
	if combined.Verdict != VerdictFail || gate(t, combined, GateCorrectness).Passed {
		t.Fatalf("combined with a conformance run that judged nothing: verdict %q, gates %+v", combined.Verdict, combined.Gates)
	}
	loads := Combine("loads", []Scorecard{load, load})
	if loads.Verdict != VerdictPass {
		t.Fatalf("two load runs combined: verdict %q, gates %+v", loads.Verdict, loads.Gates)
	}
}

func TestChecksGate(t *testing.T) {
	for _, c := range []struct {
		name   string
		checks []Check
		want   string
	}{
		{"all passed", []Check{{Name: "a", Passed: true}, {Name: "b", NotApplicable: true}}, "pass"},
		{"one failed", []Check{{Name: "a", Passed: true}, {Name: "b"}, {Name: "c", Inconclusive: true}}, "FAIL"},
		{"one could not tell", []Check{{Name: "a", Passed: true}, {Name: "c", Inconclusive: true}}, "inconclusive"},
		{"none judged", []Check{{Name: "b", NotApplicable: true}}, "FAIL"},
		{"none ran", nil, "FAIL"},
	} {
		g := ChecksGate("gate", ChecksAxis(AxisRobustness, 0.15, c.checks))
		if g.Result() != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, g.Result(), g.Detail, c.want)
		}
		if c.name == "one failed" && !strings.Contains(g.Detail, "b") {
			t.Errorf("the failed check is not named: %s", g.Detail)
		}
	}
}
