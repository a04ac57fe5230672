package threshold

import (
	"math"
	"strings"
	"testing"
)

func TestRatioThresholdsParse(t *testing.T) {
	for _, c := range []struct{ sel, expr string }{
		{"ratio{op:thought,vs:ceiling}", "p(99)<4"},
		{"ratio{vs:baseline}", "cpu_per_call < 1.10"},
		{"ratio{vs:baseline,subject:head}", "rss<1.5x"},
		{"ratio{vs:ceiling}", "throughput>0.9×"},
		{"ratio{op:thought,vs:baseline}", "med<1.25"},
	} {
		th, err := Parse(c.sel, c.expr)
		if err != nil {
			t.Errorf("%s: %s: %v", c.sel, c.expr, err)
			continue
		}
		if th.Selector.Kind() != Ratio {
			t.Errorf("%s: kind %s", c.sel, th.Selector.Kind())
		}
	}
	th := MustParse("ratio{vs:baseline}", "cpu_per_call<1.10")
	if th.Expression.Value != 1.10 || th.Expression.Aggregation.Func != CPUPerCall {
		t.Fatalf("parsed %+v", th.Expression)
	}
	for _, c := range []struct{ sel, expr, want string }{
		{"ratio", "p(99)<4", "vs:ceiling or vs:baseline"},
		{"ratio{vs:other}", "p(99)<4", "unknown reference vs:other"},
		{"ratio{vs:ceiling,class:http}", "p(99)<4", `unknown tag "class"`},
		{"ratio{vs:ceiling}", "p(99)<4ms", `remove "ms"`},
		{"ratio{vs:ceiling}", "rate<4", "rate does not apply to a ratio metric"},
		{"latency", "cpu_per_call<4", "cpu_per_call does not apply to a trend metric"},
	} {
		_, err := Parse(c.sel, c.expr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %s: error %v, want one containing %q", c.sel, c.expr, err, c.want)
		}
	}
}

func TestJudgeInterval(t *testing.T) {
	below := MustParse("ratio{vs:baseline}", "cpu_per_call<1.10").Expression
	above := MustParse("ratio{vs:ceiling}", "throughput>0.5").Expression
	for _, c := range []struct {
		e    Expression
		iv   Interval
		want Status
	}{
		{below, Interval{Estimate: 1.0, Low: 0.95, High: 1.05, N: 8}, Passed},
		{below, Interval{Estimate: 1.2, Low: 1.11, High: 1.30, N: 8}, Failed},
		{below, Interval{Estimate: 1.1, Low: 1.02, High: 1.18, N: 8}, Inconclusive},
		{below, Interval{Estimate: 1.05, Low: 1.0, High: 1.10, N: 8}, Inconclusive}, // 1.10 is not < 1.10
		{below, Interval{Estimate: 1.2, Low: math.Inf(-1), High: math.Inf(1), N: 1}, Inconclusive},
		{below, Interval{}, NoData},
		{above, Interval{Estimate: 0.9, Low: 0.8, High: 0.95, N: 6}, Passed},
		{above, Interval{Estimate: 0.4, Low: 0.3, High: 0.45, N: 6}, Failed},
		{above, Interval{Estimate: 0.5, Low: 0.45, High: 0.55, N: 6}, Inconclusive},
	} {
		if got := JudgeInterval(c.e, c.iv); got != c.want {
			t.Errorf("%s on %+v: %s, want %s", c.e, c.iv, got, c.want)
		}
	}
	// A ratio is not a per-phase figure: Evaluate never judges it.
	th := MustParse("ratio{vs:ceiling}", "p(99)<4")
	if r := Evaluate(th, func(string, map[string]string, Aggregation) (float64, bool) { return 1, true }); r.Status != NotApplicable {
		t.Fatalf("Evaluate of a ratio: %s", r.Status)
	}
}
