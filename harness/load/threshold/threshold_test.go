package threshold

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseValid(t *testing.T) {
	tests := []struct {
		selector, expr string
		wantSel        string
		agg            Aggregation
		op             Operator
		value          float64
	}{
		{"latency", "p(99)<5ms", "latency", Aggregation{Percentile, 99}, Less, 5e6},
		{"latency", "p(99.9)<=10ms", "latency", Aggregation{Percentile, 99.9}, LessEqual, 10e6},
		{"latency{op:thought}", "p(50)<1ms", "latency{op:thought}", Aggregation{Percentile, 50}, Less, 1e6},
		{"latency", "p(100) < 2s", "latency", Aggregation{Percentile, 100}, Less, 2e9},
		{"latency", "avg<2ms", "latency", Aggregation{Func: Avg}, Less, 2e6},
		{"latency", "max<100ms", "latency", Aggregation{Func: Max}, Less, 100e6},
		{"latency", "min>=0.5us", "latency", Aggregation{Func: Min}, GreaterEqual, 500},
		{"latency", "med<250µs", "latency", Aggregation{Func: Med}, Less, 250e3},
		{"latency", "med<250μs", "latency", Aggregation{Func: Med}, Less, 250e3}, // Greek mu
		{"latency", "p(90)<800ns", "latency", Aggregation{Percentile, 90}, Less, 800},
		{"latency", "count>100", "latency", Aggregation{Func: Count}, Greater, 100},
		{"service", "p(99)<1ms", "service", Aggregation{Percentile, 99}, Less, 1e6},
		{"lag", "p(99)<1ms", "lag", Aggregation{Percentile, 99}, Less, 1e6},
		{"errors", "rate<0.1%", "errors", Aggregation{Func: RateOf}, Less, 0.001},
		{"errors", "rate<0.001", "errors", Aggregation{Func: RateOf}, Less, 0.001},
		{"errors", "rate<=100%", "errors", Aggregation{Func: RateOf}, LessEqual, 1},
		{"errors{class:http}", "count==0", "errors{class:http}", Aggregation{Func: Count}, Equal, 0},
		{"dropped", "rate<1%", "dropped", Aggregation{Func: RateOf}, Less, 0.01},
		{"dropped", "count!=3", "dropped", Aggregation{Func: Count}, NotEqual, 3},
		{"throughput", "rate>1000", "throughput", Aggregation{Func: RateOf}, Greater, 1000},
		{"throughput", "rate>1500.5/s", "throughput", Aggregation{Func: RateOf}, Greater, 1500.5},
		{" latency { storage : fs , op:thought } ", "  p(99) <= 5 ms  ", "latency{op:thought,storage:fs}", Aggregation{Percentile, 99}, LessEqual, 5e6},
	}
	for _, tt := range tests {
		t.Run(tt.selector+" "+tt.expr, func(t *testing.T) {
			th, err := Parse(tt.selector, tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			if got := th.Selector.String(); got != tt.wantSel {
				t.Errorf("selector %q, want %q", got, tt.wantSel)
			}
			e := th.Expression
			if e.Aggregation != tt.agg || e.Operator != tt.op || math.Abs(e.Value-tt.value) > 1e-9*math.Max(1, tt.value) {
				t.Errorf("got %+v %q %v, want %+v %q %v", e.Aggregation, e.Operator, e.Value, tt.agg, tt.op, tt.value)
			}
			if e.Text != strings.TrimSpace(tt.expr) {
				t.Errorf("text %q", e.Text)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		selector, expr string
		column         int
		msg            string
	}{
		{"", "p(99)<5ms", 1, "missing metric name"},
		{"latncy", "p(99)<5ms", 1, `unknown metric "latncy" (want one of dropped, errors, lag, latency, ratio, service, throughput)`},
		{"Latency", "p(99)<5ms", 1, "starts with a lowercase letter"},
		{"latency{", "p(99)<5ms", 8, "unclosed '{'"},
		{"latency{op:thought", "p(99)<5ms", 8, "unclosed '{'"},
		{"latency{}", "p(99)<5ms", 9, "empty tag list"},
		{"latency{op}", "p(99)<5ms", 11, `expected ':' after the tag key "op"`},
		{"latency{op:}", "p(99)<5ms", 12, `missing value of tag "op"`},
		{"latency{op:a,op:b}", "p(99)<5ms", 14, `tag "op" given twice`},
		{"latency{op:a b}", "p(99)<5ms", 14, `expected ',' or '}'`},
		{"latency{:a}", "p(99)<5ms", 9, "expected a tag key"},
		{"latency x", "p(99)<5ms", 9, `unexpected "x" after the selector`},
		{"latency", "", 1, "empty expression"},
		{"latency", "p99<5ms", 1, `unknown aggregation "p99"`},
		{"latency", "p(99<5ms", 5, "expected ')'"},
		{"latency", "p()<5ms", 3, "expected the percentile"},
		{"latency", "p(0)<5ms", 3, "percentile 0 is out of range (0, 100]"},
		{"latency", "p(101)<5ms", 3, "percentile 101 is out of range"},
		{"latency", "p(9.9.9)<5ms", 3, `"9.9.9" is not a number`},
		{"latency", "rate<1%", 1, "rate does not apply to a trend metric (want p(N), avg, min, max, med, count)"},
		{"latency", "mean<5ms", 1, `unknown aggregation "mean"`},
		{"latency", "p(99)", 6, "missing operator and value"},
		{"latency", "p(99)=5ms", 6, `unknown operator "=" (did you mean ==?)`},
		{"latency", "p(99)=<5ms", 6, `unknown operator "=<"`},
		{"latency", "p(99)~5ms", 6, "expected an operator"},
		{"latency", "p(99)<", 7, "missing value after the operator"},
		{"latency", "p(99)<-5ms", 7, "without sign"},
		{"latency", "p(99)<5", 8, "a duration needs a unit"},
		{"latency", "p(99)<5xs", 8, `unknown unit "xs" (want ns, us, µs, ms or s)`},
		{"latency", "p(99)<5ms 3", 11, `unexpected "3" after the value`},
		{"latency", "count<5ms", 8, `a count is a plain number; remove "ms"`},
		{"errors", "p(99)<1%", 1, "p does not apply to a rate metric (want rate, count)"},
		{"errors", "rate<5", 6, "more than 1 (did you mean 5%?)"},
		{"errors", "rate<150%", 6, "150% is more than 100%"},
		{"errors", "rate<1ms", 7, `unknown unit "ms" of a rate`},
		{"throughput", "rate>10%", 8, "events per second, not a percent"},
		{"throughput", "rate>10rps", 8, `unknown unit "rps"`},
		{"throughput", "avg>10", 1, "avg does not apply to a counter metric"},
		{"dropped", "rate<abc", 6, "expected a number"},
	}
	for _, tt := range tests {
		t.Run(tt.selector+" "+tt.expr, func(t *testing.T) {
			_, err := Parse(tt.selector, tt.expr)
			if err == nil {
				t.Fatal("no error")
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%T %v, want *SyntaxError", err, err)
			}
			if se.Column != tt.column {
				t.Errorf("column %d, want %d: %v", se.Column, tt.column, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q lacks %q", err, tt.msg)
			}
			if !strings.Contains(err.Error(), "column ") {
				t.Errorf("error %q does not say where", err)
			}
		})
	}
}

func TestColumnCountsCharacters(t *testing.T) {
	// "µ" is two bytes; the column after it must count it once.
	_, err := Parse("latency", "p(99)<5µs x")
	var se *SyntaxError
	if !errors.As(err, &se) || se.Column != 11 {
		t.Fatalf("got %v, want column 11", err)
	}
}

func TestThresholdString(t *testing.T) {
	th := MustParse("latency{storage:fs,op:thought}", "p(99)<5ms")
	th.AbortOnFail = true
	if got, want := th.String(), "latency{op:thought,storage:fs}: p(99)<5ms (abortOnFail)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := (Aggregation{Percentile, 99.9}).String(); got != "p(99.9)" {
		t.Errorf("aggregation %q", got)
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	MustParse("latency", "p(99)<5")
}
