package threshold

import (
	"math"
	"strings"
	"testing"
	"time"
)

// table is a Lookup over fixed values keyed by "selector agg".
func table(values map[string]float64) Lookup {
	return func(metric string, tags map[string]string, agg Aggregation) (float64, bool) {
		v, ok := values[Selector{Metric: metric, Tags: tags}.String()+" "+agg.String()]
		return v, ok
	}
}

func TestEvaluate(t *testing.T) {
	lookup := table(map[string]float64{
		"latency p(99)":             4.9e6,
		"latency{op:thought} p(99)": 7.2e6,
		"latency max":               100e6,
		"errors rate":               0.0005,
		"errors count":              3,
		"dropped count":             0,
		"throughput rate":           1234.5,
		"lag p(99)":                 math.NaN(),
	})
	tests := []struct {
		selector, expr string
		status         Status
		observed       string
	}{
		{"latency", "p(99)<5ms", Passed, "4.9ms"},
		{"latency{op:thought}", "p(99)<5ms", Failed, "7.2ms"},
		{"latency", "max<100ms", Failed, "100ms"},
		{"latency", "max<=100ms", Passed, "100ms"},
		{"errors", "rate<0.1%", Passed, "0.05%"},
		{"errors", "rate<0.01%", Failed, "0.05%"},
		{"errors", "count==0", Failed, "3"},
		{"errors", "count!=0", Passed, "3"},
		{"dropped", "count==0", Passed, "0"},
		{"throughput", "rate>1000", Passed, "1234.5/s"},
		{"throughput", "rate>=2000", Failed, "1234.5/s"},
		{"latency{op:get_structure}", "p(99)<5ms", NoData, "no data"},
		{"service", "avg<1ms", NoData, "no data"},
		{"lag", "p(99)<1ms", NoData, "no data"}, // NaN is no data
	}
	for _, tt := range tests {
		t.Run(tt.selector+" "+tt.expr, func(t *testing.T) {
			r := Evaluate(MustParse(tt.selector, tt.expr), lookup)
			if r.Status != tt.status {
				t.Errorf("status %s, want %s", r.Status, tt.status)
			}
			if r.Ok() != (tt.status == Passed) {
				t.Errorf("Ok() = %v", r.Ok())
			}
			if got := r.ObservedText(); got != tt.observed {
				t.Errorf("observed %q, want %q", got, tt.observed)
			}
			if tt.status == NoData && !math.IsNaN(r.Observed) {
				t.Errorf("observed %v, want NaN", r.Observed)
			}
		})
	}
}

func TestEvaluatePassesTagsAndAggregation(t *testing.T) {
	var gotMetric string
	var gotTags map[string]string
	var gotAgg Aggregation
	Evaluate(MustParse("latency{op:thought}", "p(99.9)<5ms"), func(m string, tags map[string]string, a Aggregation) (float64, bool) {
		gotMetric, gotTags, gotAgg = m, tags, a
		return 1, true
	})
	if gotMetric != "latency" || gotTags["op"] != "thought" || len(gotTags) != 1 || gotAgg != (Aggregation{Percentile, 99.9}) {
		t.Errorf("lookup got %q %v %v", gotMetric, gotTags, gotAgg)
	}
	Evaluate(MustParse("errors", "rate<1%"), func(m string, tags map[string]string, a Aggregation) (float64, bool) {
		if tags != nil {
			t.Errorf("tags %v, want nil", tags)
		}
		return 0, true
	})
}

func TestEvaluateAll(t *testing.T) {
	ts := []Threshold{MustParse("latency", "p(99)<5ms"), MustParse("errors", "rate<1%")}
	results, ok := EvaluateAll(ts, table(map[string]float64{"latency p(99)": 1e6, "errors rate": 0}))
	if !ok || len(results) != 2 || results[0].Status != Passed || results[1].Status != Passed {
		t.Errorf("all pass: %v %v", ok, results)
	}
	_, ok = EvaluateAll(ts, table(map[string]float64{"latency p(99)": 1e6}))
	if ok {
		t.Error("no data counted as a pass")
	}
	_, ok = EvaluateAll(nil, table(nil))
	if !ok {
		t.Error("no thresholds should pass")
	}
}

func TestAbort(t *testing.T) {
	failing := MustParse("errors", "rate<1%")
	failing.AbortOnFail = true
	failing.DelayAbortEval = 2 * time.Second
	quiet := MustParse("latency", "p(99)<1ms") // fails but does not abort
	missing := MustParse("dropped", "rate<1%")
	missing.AbortOnFail = true // no data: never aborts
	lookups := 0
	lookup := func(m string, tags map[string]string, a Aggregation) (float64, bool) {
		lookups++
		switch m {
		case "errors":
			return 0.5, true
		case "latency":
			return 9e6, true
		}
		return 0, false
	}
	ts := []Threshold{quiet, missing, failing}
	if _, stop := Abort(ts, lookup, time.Second); stop {
		t.Error("aborted before DelayAbortEval")
	}
	if lookups != 1 {
		t.Errorf("%d lookups before the delay, want 1 (only the threshold without delay that aborts)", lookups)
	}
	r, stop := Abort(ts, lookup, 2*time.Second)
	if !stop || r.Threshold.Selector.Metric != "errors" || r.Status != Failed {
		t.Fatalf("got %v %v, want errors to abort", r, stop)
	}
	if !strings.Contains(r.String(), "errors: rate<1%: observed 50%: failed") {
		t.Errorf("report %q", r)
	}
	if !r.Aborts(2*time.Second) || r.Aborts(time.Second) {
		t.Error("Aborts ignores the delay")
	}
}

func TestFormatValue(t *testing.T) {
	tests := []struct {
		k    Kind
		agg  Aggregation
		v    float64
		want string
	}{
		{Trend, Aggregation{Func: Avg}, 1234567, "1.235ms"},
		{Trend, Aggregation{Func: Avg}, 12345678, "12.35ms"},
		{Trend, Aggregation{Func: Max}, 2.5e9, "2.5s"},
		{Trend, Aggregation{Func: Min}, 850, "850ns"},
		{Trend, Aggregation{Func: Min}, 250500, "250.5µs"},
		{Trend, Aggregation{Func: Count}, 42, "42"},
		{Rate, Aggregation{Func: RateOf}, 0.001, "0.1%"},
		{Counter, Aggregation{Func: RateOf}, 1500, "1500.0/s"},
		{Rate, Aggregation{Func: RateOf}, math.NaN(), "no data"},
	}
	for _, tt := range tests {
		if got := FormatValue(tt.k, tt.agg, tt.v); got != tt.want {
			t.Errorf("FormatValue(%s, %s, %v) = %q, want %q", tt.k, tt.agg, tt.v, got, tt.want)
		}
	}
}

func TestStatusAndKindNames(t *testing.T) {
	if Passed.String() != "passed" || Failed.String() != "failed" || NoData.String() != "no data" {
		t.Error("status names")
	}
	if k, ok := MetricKind("throughput"); !ok || k != Counter || k.String() != "counter" {
		t.Error("throughput is a counter")
	}
	if _, ok := MetricKind("nope"); ok {
		t.Error("unknown metric known")
	}
	if ExitThresholds != 99 {
		t.Error("k6 exits 99 on failed thresholds")
	}
}
