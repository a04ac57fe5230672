package workload

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/threshold"
)

func TestLadderRungs(t *testing.T) {
	l := Ladder{Start: 1000, Factor: 1.5, Steps: 4}
	if got := l.Rungs(); !reflect.DeepEqual(got, []float64{1000, 1500, 2250, 3375}) {
		t.Errorf("rungs %v", got)
	}
	l = Ladder{Rates: []float64{100, 200}}
	got := l.Rungs()
	got[0] = 5
	if l.Rates[0] != 100 {
		t.Error("Rungs returned the ladder's own slice")
	}
	def := Default().Tiers[Stress].Ladder.Rungs()
	if len(def) != 16 || def[0] != 200 || math.Abs(def[15]-200*math.Pow(1.25, 15)) > 1e-6 {
		t.Errorf("default rungs %v", def)
	}
}

func TestTierTotal(t *testing.T) {
	w := Default()
	tests := map[string]time.Duration{
		Smoke:       3 * time.Second,
		Regression:  16 * time.Second,
		Stress:      48 * time.Second,
		Soak:        10 * time.Minute,
		LongSession: 0,
		Listing:     0,
	}
	for name, want := range tests {
		if got := w.Tiers[name].Total(); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}

func TestRateAt(t *testing.T) {
	ramp := Tier{Model: Ramping, Rate: 100, Stages: []Stage{
		{Target: 300, Duration: 2 * time.Second},
		{Target: 300, Duration: time.Second},
		{Target: 0, Duration: time.Second},
	}}
	tests := []struct {
		at   time.Duration
		want float64
	}{
		{0, 100}, {time.Second, 200}, {2 * time.Second, 300}, {2500 * time.Millisecond, 300},
		{3500 * time.Millisecond, 150}, {4 * time.Second, 0}, {time.Hour, 0},
	}
	for _, tt := range tests {
		if got := ramp.RateAt(tt.at); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("RateAt(%v) = %v, want %v", tt.at, got, tt.want)
		}
	}
	if (Tier{Model: Open, Rate: 7}).RateAt(time.Hour) != 7 || (Tier{Model: Closed, Users: 3}).RateAt(0) != 0 {
		t.Error("open or closed rate")
	}
}

func TestRampingDurationIsTheStages(t *testing.T) {
	doc := "tiers:\n  smoke:\n    model: ramping\n    maxUsers: 8\n    stages:\n      - {target: 50, duration: 1s}\n      - {target: 0, duration: 500ms}\n"
	w, err := Parse("ramp.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if d := w.Tiers[Smoke].Duration; d != 1500*time.Millisecond {
		t.Errorf("duration %v", d)
	}
}

func TestImpliedModels(t *testing.T) {
	w, err := Parse("t.yaml", []byte("tiers:\n  long-session: {thoughts: 50, window: 5}\n  listing: {sessions: [10], samples: 2}\n  stress:\n    maxUsers: 2\n    ladder: {rates: [5], stepDuration: 1s, slo: {errors: rate<1%}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{LongSession, Listing} {
		if tier := w.Tiers[name]; tier.Model != Closed || tier.Users != 1 || tier.Rounds != 1 {
			t.Errorf("%s: %+v", name, tier)
		}
	}
	if tier := w.Tiers[Stress]; tier.Model != Open || tier.Rounds != 1 {
		t.Errorf("stress: %+v", tier)
	}
}

func TestValidateThresholdsBuiltInCode(t *testing.T) {
	w := Default()
	tier := w.Tiers[Smoke]
	th := threshold.MustParse("latency{op:thought}", "p(99)<5ms")
	th.Selector.Tags["op"] = "nope"
	tier.Thresholds = append(tier.Thresholds, th)
	w.Tiers[Smoke] = tier
	err := w.Validate()
	if err == nil || !strings.Contains(err.Error(), `tiers.smoke.thresholds.latency{op:nope}: unknown op "nope"`) {
		t.Errorf("got %v", err)
	}
}
