package regress

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// axes are the axis scores of a sound run.
var axes = map[string]float64{scorecards.AxisCorrectness: 0.95, scorecards.AxisRobustness: 0.98, scorecards.AxisPerformance: 0.9}

// column returns the k-th value of every round.
func column(rs [][2]float64, k int) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r[k]
	}
	return out
}

// figure returns the figure of the comparison or fails the test.
func figure(t *testing.T, res Result, target, name string) Figure {
	t.Helper()
	for _, f := range res.Figures {
		if f.Target == target && f.Name == name {
			return f
		}
	}
	t.Fatalf("no figure %s %s in %+v", target, name, res.Figures)
	return Figure{}
}

func TestCompareFindsAClearRegression(t *testing.T) {
	base := open(t, writeRun(t, card("base", axes), report(rounds(1, 6, 800, 5, 0.02))))
	// 20 % less throughput, 30 % more latency, spread 2 %.
	cur := open(t, writeRun(t, card("cur", axes), report(rounds(2, 6, 640, 6.5, 0.02))))
	start := time.Now()
	res := Compare(base, cur, nil)
	md := res.Markdown()
	t.Logf("compared in %s", time.Since(start))
	if !res.Comparable || !res.Regressed() {
		t.Fatalf("not a regression:\n%s", md)
	}
	tp := figure(t, res, "fs", FigureThroughput)
	if tp.Verdict != VerdictRegression || tp.Shift.P >= 0.05 || !tp.Shift.HasCI || tp.Shift.High >= 0.95 || tp.Shift.Low < 0.7 {
		t.Fatalf("throughput %+v", tp)
	}
	if p := figure(t, res, "fs", FigureP99); p.Verdict != VerdictRegression || p.Worse() < 0.2 {
		t.Fatalf("p99 %+v", p)
	}
	for _, want := range []string{"## tbbench compare: REGRESSION", "### Regressions", "fs throughput: ", "| fs | throughput (calls/s) |", "**regression**", "<details>"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestCompareNoiseIsNotARegression(t *testing.T) {
	// Both runs from the same distribution. Round to round spread of ±3 %
	// (the regression tier's throughput varies less): never flagged.
	// Spread of ±10 %: a difference is significant by chance in about α
	// of the figures, and beyond the 5 % minimum effect in fewer still.
	for _, c := range []struct {
		spread  float64
		maxRate float64
	}{{0.03, 0}, {0.10, DefaultAlpha}} {
		flagged, significant, n := 0, 0, 0
		for seed := uint64(1); seed <= 100; seed++ {
			base, cur := rounds(seed, 6, 800, 5, c.spread), rounds(seed+1000, 6, 800, 5, c.spread)
			for k, name := range []string{FigureThroughput, FigureP99} {
				f := DefaultGates().figure("fs", name, column(base, k), column(cur, k), true)
				n++
				if f.Regressed {
					flagged++
				}
				if f.Shift.Significant(DefaultAlpha) {
					significant++
				}
			}
		}
		t.Logf("spread ±%.0f%%: %d of %d figures significant by chance, %d flagged", c.spread*100, significant, n, flagged)
		if rate := float64(flagged) / float64(n); rate > c.maxRate {
			t.Errorf("spread ±%.0f%%: %d of %d noisy figures flagged as regressions", c.spread*100, flagged, n)
		}
	}
}

func TestCompareIncomparableMachinesAreNotGated(t *testing.T) {
	worse := card("cur", map[string]float64{scorecards.AxisCorrectness: 0.5, scorecards.AxisRobustness: 0.5})
	worse.Machine.CPUModel = "Other CPU"
	rep := report(rounds(2, 6, 400, 10, 0.01))
	rep.Machine = worse.Machine
	base := open(t, writeRun(t, card("base", axes), report(rounds(1, 6, 800, 5, 0.01))))
	cur := open(t, writeRun(t, worse, rep))
	res := Compare(base, cur, mustGates(t, "robustness: \">=0.95\"\n"))
	if res.Comparable || res.Regressed() {
		t.Fatalf("other machine gated:\n%s", res.Markdown())
	}
	if f := figure(t, res, "fs", FigureThroughput); f.Verdict != VerdictNotComparable || f.Regressed {
		t.Fatalf("throughput %+v", f)
	}
	md := res.Markdown()
	for _, want := range []string{"not comparable", "**Not comparable**", "Other CPU", "| not gated |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestOpenPairRefusesAnotherSchemaVersion(t *testing.T) {
	cur := writeRun(t, card("cur", axes), nil)
	doc, _ := os.ReadFile(filepath.Join(cur, "scorecard.json"))
	old := filepath.Join(t.TempDir(), "old.json")
	os.WriteFile(old, []byte(strings.Replace(string(doc), `"schemaVersion": "1"`, `"schemaVersion": "0"`, 1)), 0o644)
	_, _, err := OpenPair(old, cur)
	if err == nil || !strings.Contains(err.Error(), `version "0"`) || !strings.Contains(err.Error(), `version "1"`) || !strings.Contains(err.Error(), old) {
		t.Fatalf("error %v, want both versions and the path", err)
	}
	if _, err := Open(old); err == nil || !strings.Contains(err.Error(), `"0"`) || !strings.Contains(err.Error(), `"1"`) {
		t.Fatalf("Open: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "nope.json")
	if _, _, err := OpenPair(missing, cur); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestCompareScoresWithGates(t *testing.T) {
	base := open(t, writeRun(t, card("base", axes), nil))
	cur := open(t, writeRun(t, card("cur", map[string]float64{scorecards.AxisCorrectness: 0.92, scorecards.AxisRobustness: 0.94,
		scorecards.AxisPerformance: 0.9}), nil))
	if res := Compare(base, cur, nil); res.Regressed() {
		t.Fatalf("drops of 3 and 4 pp regress by default:\n%s", res.Markdown())
	}
	res := Compare(base, cur, mustGates(t, "correctness: drop<2pp\nrobustness: \">=0.95\"\nperformance: \">=0.9\"\n"))
	if !res.Regressed() {
		t.Fatalf("gates not applied:\n%s", res.Markdown())
	}
	if len(res.Scores.Regressions) != 1 || res.Scores.Regressions[0].Name != scorecards.AxisCorrectness {
		t.Fatalf("score regressions %+v", res.Scores.Regressions)
	}
	var failed []int
	for _, o := range res.Outcomes {
		if !o.Passed {
			failed = append(failed, o.Rule.Line)
		}
	}
	if len(failed) != 2 || failed[0] != 1 || failed[1] != 2 {
		t.Fatalf("failed rules on lines %v, want 1 and 2: %+v", failed, res.Outcomes)
	}
	if md := res.Markdown(); !strings.Contains(md, "gate `robustness: >=0.95` (line 2): 94.0%") {
		t.Fatalf("markdown:\n%s", md)
	}
}

func TestFigureGateOverridesTheMinimumEffect(t *testing.T) {
	base := open(t, writeRun(t, card("base", axes), report(rounds(1, 6, 800, 5, 0.01))))
	cur := open(t, writeRun(t, card("cur", axes), report(rounds(2, 6, 736, 5.6, 0.01)))) // −8 %, +12 %
	if res := Compare(base, cur, nil); !res.Regressed() {
		t.Fatalf("−8 %% is within the default 5 %%:\n%s", res.Markdown())
	}
	g := mustGates(t, "throughput{target:fs}: \"drop<10%\"\np99: \"rise<=20%\"\nthought-p99{target:fs}: \"rise<15%\"\n")
	res := Compare(base, cur, g)
	if res.Regressed() {
		t.Fatalf("within the gate's limits:\n%s", res.Markdown())
	}
	if f := figure(t, res, "fs", FigureThroughput); f.Verdict != VerdictWorse || f.Rule == nil || f.Rule.Line != 1 {
		t.Fatalf("throughput %+v", f)
	}
	g = mustGates(t, "p99{target:memory}: \"rise<20%\"\n")
	if res := Compare(base, cur, g); !res.Regressed() || res.Outcomes[0].Passed || !strings.Contains(res.Outcomes[0].Detail, "no such figure") {
		t.Fatalf("a gate on a target not measured passes: %+v", res.Outcomes)
	}
}

// TestOneMinimumEffectForScoresAndFigures: a gate file's min-effect is the
// limit of the scores no rule names, in points, as it is of the load
// figures, as a fraction.
func TestOneMinimumEffectForScoresAndFigures(t *testing.T) {
	base := open(t, writeRun(t, card("base", axes), report(rounds(1, 6, 800, 5, 0.01))))
	dropped := map[string]float64{}
	for k, v := range axes {
		dropped[k] = v
	}
	dropped[scorecards.AxisCorrectness] -= 0.07                                           // 7 pp
	cur := open(t, writeRun(t, card("cur", dropped), report(rounds(2, 6, 736, 5, 0.01)))) // −8 %
	res := Compare(base, cur, nil)
	if len(res.Scores.Regressions) != 1 || !figure(t, res, "fs", FigureThroughput).Regressed {
		t.Fatalf("7 pp and −8 %% are beyond the default minimum effect of 5:\n%s", res.Markdown())
	}
	res = Compare(base, cur, mustGates(t, "min-effect: 10%\n"))
	if res.Regressed() {
		t.Fatalf("7 pp and −8 %% are within a minimum effect of 10:\n%s", res.Markdown())
	}
	if res.Scores.Deltas[0].Limit != 0.1 {
		t.Fatalf("score limit %v, want the minimum effect 0.1", res.Scores.Deltas[0].Limit)
	}
	if res := Compare(base, cur, mustGates(t, "min-effect: 0%\n")); len(res.Scores.Regressions) != 1 || res.Scores.Deltas[0].Limit != 0 {
		t.Fatalf("a minimum effect of 0 is a limit of 0: %+v", res.Scores.Deltas[0])
	}
}
