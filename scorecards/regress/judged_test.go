package regress

import (
	"math"
	"strings"
	"testing"

	"golang.org/x/perf/benchmath"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

func TestMinP(t *testing.T) {
	// Worked by hand: 2 / C(n1+n2, n1), at most 1.
	for _, c := range []struct {
		n1, n2 int
		want   float64
	}{
		{0, 5, 1},
		{1, 1, 1},        // 2/2
		{1, 3, 0.5},      // 2/4
		{2, 2, 1.0 / 3},  // 2/6
		{3, 3, 0.1},      // 2/20
		{3, 4, 2.0 / 35}, // C(7,3) = 35
		{4, 3, 2.0 / 35},
		{3, 5, 2.0 / 56},  // C(8,3) = 56
		{4, 4, 2.0 / 70},  // C(8,4) = 70
		{5, 5, 2.0 / 252}, // C(10,5) = 252
		{6, 6, 2.0 / 924}, // C(12,6) = 924
	} {
		if got := MinP(c.n1, c.n2); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("MinP(%d, %d) = %v, want %v", c.n1, c.n2, got, c.want)
		}
	}
	// Twice the probability of U = 0 in the exact distribution.
	for _, n := range [][2]int{{3, 3}, {4, 6}, {7, 5}} {
		if got, want := MinP(n[0], n[1]), 2*uCDF(n[0], n[1])[0]; math.Abs(got-want) > 1e-12 {
			t.Errorf("MinP%v = %v, uCDF says %v", n, got, want)
		}
	}
}

// TestMinPIsWhatBenchmathReaches checks MinP against the p-value benchmath
// gives the most extreme samples: every current value above every
// baseline value.
func TestMinPIsWhatBenchmathReaches(t *testing.T) {
	for _, n := range [][2]int{{3, 3}, {4, 4}, {3, 5}, {6, 6}} {
		base, cur := make([]float64, n[0]), make([]float64, n[1])
		for i := range base {
			base[i] = 100 + float64(i)
		}
		for i := range cur {
			cur[i] = 200 + float64(i)
		}
		th := benchmath.DefaultThresholds
		p := benchmath.AssumeNothing.Compare(benchmath.NewSample(base, &th), benchmath.NewSample(cur, &th)).P
		if want := MinP(n[0], n[1]); math.Abs(p-want) > 1e-9 {
			t.Errorf("%d against %d, fully apart: benchmath p %v, MinP %v", n[0], n[1], p, want)
		}
	}
}

func TestRoundsNeeded(t *testing.T) {
	// MinP(n, n) for n = 2…7: 1/3, 0.1, 2/70 ≈ 0.029, 2/252 ≈ 0.0079,
	// 2/924 ≈ 0.0022, 2/3432 ≈ 0.00058; the first below α (strictly).
	for _, c := range []struct {
		alpha float64
		want  int
	}{{0.05, 4}, {0.01, 5}, {0.1, 4}, {0.2, 3}, {0.001, 7}} {
		if got := RoundsNeeded(c.alpha); got != c.want {
			t.Errorf("RoundsNeeded(%g) = %d, want %d", c.alpha, got, c.want)
		}
	}
}

// firstLine returns the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func TestCompareThreeRoundsJudgesNothing(t *testing.T) {
	// Half the throughput, twice the latency: the U test still cannot
	// tell with 3 rounds against 3.
	base := open(t, writeRun(t, card("base", axes), report(rounds(1, 3, 800, 5, 0.01))))
	cur := open(t, writeRun(t, card("cur", axes), report(rounds(2, 3, 400, 10, 0.01))))
	res := Compare(base, cur, nil)
	md := res.Markdown()
	if res.Regressed() || !res.NothingJudged() {
		t.Fatalf("regressed %v, nothing judged %v:\n%s", res.Regressed(), res.NothingJudged(), md)
	}
	for _, f := range res.Figures {
		if f.Detectable || f.Verdict != VerdictUndetectable || !strings.Contains(f.Undetectable, "3 rounds against 3") {
			t.Errorf("%s %s: %+v", f.Target, f.Name, f)
		}
	}
	want := "nothing judged: none of the 3 load figures can detect a difference — 3 rounds against 3: the U test cannot reach p < 0.05 (smallest possible p 0.100), at least 4 against 4 are needed"
	if h := res.Headline(); h != want {
		t.Errorf("headline %q\nwant     %q", h, want)
	}
	if l := firstLine(md); l != "## tbbench compare: "+want {
		t.Errorf("first line of the report %q", l)
	}
	for _, s := range []string{"**Nothing judged**", "| cannot detect: too few rounds |", "run more rounds"} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown lacks %q:\n%s", s, md)
		}
	}
	// A bigger α lets 3 rounds judge: 0.1 < 0.15.
	if res := Compare(base, cur, mustGates(t, "alpha: 0.15\n")); res.NothingJudged() || !res.Regressed() {
		t.Errorf("α 0.15: nothing judged %v, regressed %v:\n%s", res.NothingJudged(), res.Regressed(), res.Markdown())
	}
}

func TestCompareSixRoundsJudge(t *testing.T) {
	base := open(t, writeRun(t, card("base", axes), report(rounds(1, 6, 800, 5, 0.02))))
	// 30 % less throughput and 30 % more latency.
	worse := open(t, writeRun(t, card("cur", axes), report(rounds(2, 6, 560, 6.5, 0.02))))
	// The same distribution as the baseline's.
	same := open(t, writeRun(t, card("cur", axes), report(rounds(3, 6, 800, 5, 0.02))))

	res := Compare(base, worse, nil)
	if !res.Regressed() || res.NothingJudged() || !strings.HasPrefix(res.Headline(), "REGRESSION (3)") {
		t.Fatalf("30 %% worse: regressed %v, nothing judged %v, headline %q:\n%s", res.Regressed(), res.NothingJudged(), res.Headline(), res.Markdown())
	}
	for _, f := range res.Figures {
		if !f.Detectable || f.Undetectable != "" || f.Verdict != VerdictRegression {
			t.Errorf("%s %s: %+v", f.Target, f.Name, f)
		}
	}
	if h := res.Headline(); strings.Contains(h, "cannot detect") {
		t.Errorf("headline %q", h)
	}

	res = Compare(base, same, nil)
	if res.Regressed() || res.NothingJudged() || res.Headline() != "no regression" || firstLine(res.Markdown()) != "## tbbench compare: no regression" {
		t.Fatalf("same distribution: regressed %v, nothing judged %v, headline %q:\n%s", res.Regressed(), res.NothingJudged(), res.Headline(), res.Markdown())
	}
	for _, f := range res.Figures {
		if !f.Detectable || f.Verdict == VerdictUndetectable {
			t.Errorf("%s %s: %+v", f.Target, f.Name, f)
		}
	}
}

// withTarget adds the rounds of another report, as target label, to r.
func withTarget(r, other *loadreport.Report, label string) *loadreport.Report {
	r.Targets = append(r.Targets, loadreport.TargetInfo{Label: label, Kind: "embedded", Transport: "http", Storage: label})
	for _, p := range other.Phases {
		p.Label, p.Target, p.Name = label, label, "regression "+label
		r.Phases = append(r.Phases, p)
	}
	return r
}

func TestCompareSomeFiguresCannotDetect(t *testing.T) {
	// Target fs has 6 rounds on each side, target memory only 3.
	base := Run{Path: "base", Scorecard: card("base", axes),
		Load: withTarget(report(rounds(1, 6, 800, 5, 0.02)), report(rounds(3, 3, 900, 4, 0.02)), "memory")}
	cur := Run{Path: "cur", Scorecard: card("cur", axes),
		Load: withTarget(report(rounds(2, 6, 800, 5, 0.02)), report(rounds(4, 3, 450, 8, 0.02)), "memory")}
	res := Compare(base, cur, nil)
	if len(res.Figures) != 6 {
		t.Fatalf("figures %+v", res.Figures)
	}
	if res.Regressed() || res.NothingJudged() {
		t.Fatalf("regressed %v, nothing judged %v:\n%s", res.Regressed(), res.NothingJudged(), res.Markdown())
	}
	want := "no regression; 3 of 6 load figures cannot detect a difference — target memory, 3 rounds against 3: the U test cannot reach p < 0.05 (smallest possible p 0.100), at least 4 against 4 are needed"
	if h := res.Headline(); h != want {
		t.Errorf("headline %q\nwant     %q", h, want)
	}
	md := res.Markdown()
	if firstLine(md) != "## tbbench compare: "+want || !strings.Contains(md, "**Cannot detect a difference** (too few rounds): memory throughput, memory p99, memory thought-p99.") {
		t.Errorf("markdown:\n%s", md)
	}
}

func TestCompareScoreRegressionOutranksNothingJudged(t *testing.T) {
	worse := map[string]float64{scorecards.AxisCorrectness: 0.80, scorecards.AxisRobustness: 0.98, scorecards.AxisPerformance: 0.9}
	base := open(t, writeRun(t, card("base", axes), report(rounds(1, 3, 800, 5, 0.01))))
	cur := open(t, writeRun(t, card("cur", worse), report(rounds(2, 3, 800, 5, 0.01))))
	res := Compare(base, cur, nil)
	if !res.Regressed() || !res.NothingJudged() {
		t.Fatalf("regressed %v, nothing judged %v:\n%s", res.Regressed(), res.NothingJudged(), res.Markdown())
	}
	h := res.Headline()
	if !strings.HasPrefix(h, "REGRESSION (1); none of the 3 load figures can detect a difference — 3 rounds against 3: ") {
		t.Errorf("headline %q", h)
	}
	if md := res.Markdown(); strings.Contains(md, "**Nothing judged**") || !strings.Contains(md, "**Cannot detect a difference**") {
		t.Errorf("markdown:\n%s", md)
	}
}

func TestCompareNothingInCommonJudgesNothing(t *testing.T) {
	// No load and no axis in common: nothing compared.
	base := open(t, writeRun(t, card("base", map[string]float64{scorecards.AxisCorrectness: 0.9}), nil))
	cur := open(t, writeRun(t, card("cur", map[string]float64{scorecards.AxisRobustness: 0.9}), nil))
	res := Compare(base, cur, nil)
	if res.Regressed() || !res.NothingJudged() || !strings.HasPrefix(res.Headline(), "nothing judged: no load figures") {
		t.Fatalf("regressed %v, nothing judged %v, headline %q:\n%s", res.Regressed(), res.NothingJudged(), res.Headline(), res.Markdown())
	}
	// A common axis, without load, is judged.
	if res := Compare(base, base, nil); res.NothingJudged() || res.Headline() != "no regression" {
		t.Fatalf("a common axis: headline %q", res.Headline())
	}
	// So is a passing floor on this run's score.
	if res := Compare(base, cur, mustGates(t, "robustness: \">=0.8\"\n")); res.NothingJudged() || res.Regressed() {
		t.Fatalf("a passing floor: headline %q", res.Headline())
	}
}

func TestCompareOtherMachineIsNeverNothingJudged(t *testing.T) {
	other := card("cur", axes)
	other.Machine.CPUModel = "Other CPU"
	rep := report(rounds(2, 3, 800, 5, 0.01))
	rep.Machine = other.Machine
	base := open(t, writeRun(t, card("base", axes), report(rounds(1, 3, 800, 5, 0.01))))
	res := Compare(base, open(t, writeRun(t, other, rep)), nil)
	if res.Comparable || res.NothingJudged() || res.Regressed() || !strings.HasPrefix(res.Headline(), "not comparable") {
		t.Fatalf("comparable %v, nothing judged %v, headline %q", res.Comparable, res.NothingJudged(), res.Headline())
	}
}
