package workload

import (
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/threshold"
)

// Default returns the default workload, the one example.yaml spells out.
// Each call returns a new value the caller may change.
func Default() *Workload {
	return &Workload{
		Source: "default",
		Session: Session{
			Thoughts:       IntRange{Min: 6, Max: 16},
			ThoughtBytes:   IntRange{Min: 200, Max: 1200},
			ThinkTime:      DurationRange{},
			Branch:         0.1,
			BranchContinue: 0.5,
			Revision:       0.05,
			ReadThoughts:   0.1,
			GetStructure:   0.05,
			SessionList:    0.1,
			SessionGet:     0.1,
			ListLimit:      10,
		},
		Tiers: map[string]Tier{
			Smoke: {
				Name: Smoke, Model: Closed, Users: 4, Duration: 3 * time.Second, Rounds: 1,
				Thresholds: []threshold.Threshold{
					threshold.MustParse("errors", "count==0"),
					threshold.MustParse("throughput", "count>0"),
				},
			},
			Regression: {
				Name: Regression, Model: Open, Rate: 400, Duration: 2 * time.Second, MaxUsers: 64, Rounds: 8, Warmup: 2 * time.Second,
				Thresholds: []threshold.Threshold{
					threshold.MustParse("errors", "rate<0.1%"),
					threshold.MustParse("ratio{op:thought,vs:ceiling}", "p(50)<4"),
					threshold.MustParse("ratio{vs:ceiling}", "cpu_per_call<4"),
					threshold.MustParse("ratio{op:thought,vs:baseline}", "p(50)<1.25"),
					threshold.MustParse("ratio{vs:baseline}", "cpu_per_call<1.05"),
				},
				Ceiling: []threshold.Threshold{
					threshold.MustParse("latency{op:thought}", "p(99)<25ms"),
					threshold.MustParse("dropped", "rate<1%"),
					threshold.MustParse("lag", "p(99)<10ms"),
				},
			},
			Stress: {
				Name: Stress, Model: Open, MaxUsers: 128, Rounds: 1, Warmup: 3 * time.Second,
				Ladder: &Ladder{
					Start: 200, Factor: 1.25, Steps: 16, StepDuration: 3 * time.Second,
					SLO: []threshold.Threshold{
						threshold.MustParse("latency", "p(99)<5ms"),
						threshold.MustParse("errors", "rate<0.1%"),
						threshold.MustParse("dropped", "rate<1%"),
					},
				},
			},
			Soak: {
				Name: Soak, Model: Open, Rate: 500, Duration: 10 * time.Minute, MaxUsers: 64, Rounds: 1,
				Thresholds: []threshold.Threshold{
					abortOnFail(threshold.MustParse("errors", "rate<0.1%"), 30*time.Second),
					threshold.MustParse("dropped", "rate<1%"),
				},
			},
			LongSession: {
				Name: LongSession, Model: Closed, Users: 1, Rounds: 1, Thoughts: 10000, Window: 100,
				Thresholds: []threshold.Threshold{
					threshold.MustParse("errors", "count==0"),
				},
			},
			Listing: {
				Name: Listing, Model: Closed, Users: 1, Rounds: 1, Sessions: []int{1000, 10000}, Samples: 100,
				Thresholds: []threshold.Threshold{
					threshold.MustParse("errors", "count==0"),
					threshold.MustParse("latency{op:list_sessions}", "p(99)<50ms"),
				},
			},
		},
	}
}

func abortOnFail(t threshold.Threshold, delay time.Duration) threshold.Threshold {
	t.AbortOnFail, t.DelayAbortEval = true, delay
	return t
}
