package workload

import (
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/threshold"
)

// The tiers a workload describes.
const (
	Smoke       = "smoke"        // seconds: the load path works and the data is kept
	Regression  = "regression"   // fixed rate and duration, repeated in rounds
	Stress      = "stress"       // an arrival-rate ladder that finds the maximum sustainable rate
	Soak        = "soak"         // long; latency and RSS slopes
	LongSession = "long-session" // one reasoning session of many thoughts
	Listing     = "listing"      // session listing with many stored sessions
)

// TierNames lists the tiers in the order reports show them.
var TierNames = []string{Smoke, Regression, Stress, Soak, LongSession, Listing}

func tierList() string { return strings.Join(TierNames, ", ") }

// Model is how a tier offers load.
type Model string

const (
	// Closed runs Users virtual users, each sending its next call when the
	// previous one is answered (and its think time has passed).
	Closed Model = "closed"
	// Open sends calls at a constant arrival rate, whatever the answers'
	// speed, from a pool of at most MaxUsers virtual users; an arrival that
	// finds every user busy is dropped and counted.
	Open Model = "open"
	// Ramping is Open with a rate that changes linearly through Stages, from
	// Rate, like k6's ramping-arrival-rate executor.
	Ramping Model = "ramping"
)

// Stage is one stage of a ramping arrival rate: over Duration the rate moves
// linearly from the previous stage's target (or the tier's Rate) to Target.
type Stage struct {
	Target   float64
	Duration time.Duration
}

// Tier holds one tier's parameters. Which fields a tier uses depends on the
// tier and its model; the others are zero.
type Tier struct {
	// Name is the tier's name, one of TierNames.
	Name string
	// Model is the load model. Stress is always Open; long-session and
	// listing are Closed with one user.
	Model Model
	// Users is the number of virtual users of a Closed model.
	Users int
	// Rate is the arrival rate of an Open model and the starting rate of a
	// Ramping one, in calls per second.
	Rate float64
	// Stages are a Ramping model's stages.
	Stages []Stage
	// Duration is how long one round of a Closed or Open model lasts; for a
	// Ramping model it is the sum of the stages' durations.
	Duration time.Duration
	// MaxUsers is the pool of virtual users of an Open or Ramping model.
	MaxUsers int
	// Rounds is how many times the tier runs (at least 1), so that
	// comparisons have statistics.
	Rounds int
	// Warmup, when set, runs the load model for this long against every
	// target before the first round: an unmeasured phase (no thresholds;
	// its thoughts are still read back) that lets caches, heaps and
	// connections settle, so that the first round is not judged on a cold
	// server.
	Warmup time.Duration
	// Ladder is the stress tier's ladder of arrival rates.
	Ladder *Ladder
	// Thoughts is the long-session tier's number of thoughts.
	Thoughts int
	// Window is how many thoughts at each end of the long session are
	// compared (the cost of the last Window against the first Window).
	Window int
	// Sessions are the listing tier's numbers of stored sessions, measured
	// in turn.
	Sessions []int
	// Samples is how many calls of each listing operation are measured at
	// each number of stored sessions.
	Samples int
	// Thresholds are the tier's pass/fail criteria, in file order. Those of
	// the ratio metric compare each subject with the no-op ceiling or the
	// baseline of the same run, round by round, and are judged on the
	// confidence interval of the paired ratios.
	Thresholds []threshold.Threshold
	// SideBySide runs every subject's phase of a round, the no-op
	// ceiling's too, at the same time, each at the tier's rate, instead of
	// one after another: whatever the machine does during a round falls on
	// all of them alike, so their paired ratios are far less noisy, and the
	// ceiling's figures say whether the machine sustained the whole load
	// (smoke, regression and soak).
	SideBySide bool
	// Ceiling is what the no-op ceiling must hold, over all its measured
	// rounds, for the run to judge anything: when the ceiling misses one
	// of these, the machine could not sustain the tier and the verdict is
	// inconclusive, never pass or fail. Ratio thresholds do not apply here.
	Ceiling []threshold.Threshold
}

// Ladder is the stress tier's ladder: constant arrival rates, one rung after
// the other, each for StepDuration. The maximum sustainable rate is the
// highest rung at which every SLO threshold passes.
type Ladder struct {
	// Start is the first rung's rate in calls per second.
	Start float64
	// Factor multiplies the rate from one rung to the next (> 1); used with
	// Steps. Zero when Rates is given.
	Factor float64
	// Steps is the number of rungs when Factor is given.
	Steps int
	// Rates lists the rungs explicitly (increasing), instead of Start,
	// Factor and Steps.
	Rates []float64
	// StepDuration is how long each rung lasts.
	StepDuration time.Duration
	// SLO are the thresholds a rung must pass to count as sustainable.
	SLO []threshold.Threshold
}

// Rungs returns the ladder's rates in calls per second, in order.
func (l Ladder) Rungs() []float64 {
	if len(l.Rates) > 0 {
		return append([]float64(nil), l.Rates...)
	}
	rungs := make([]float64, 0, l.Steps)
	r := l.Start
	for range l.Steps {
		rungs = append(rungs, r)
		r *= l.Factor
	}
	return rungs
}

// Total returns how long the whole tier lasts, all rounds included, when
// nothing aborts it: Duration × Rounds for load models, every rung for the
// stress ladder; zero for long-session and listing, whose length depends on
// the server.
func (t Tier) Total() time.Duration {
	rounds := time.Duration(max(t.Rounds, 1))
	if t.Ladder != nil {
		return rounds * time.Duration(len(t.Ladder.Rungs())) * t.Ladder.StepDuration
	}
	return rounds * t.Duration
}

// RateAt returns the arrival rate of an Open or Ramping tier at elapsed time
// since the start of a round: Rate for Open, the linear interpolation through
// Stages for Ramping (the last target after the last stage), zero for Closed.
func (t Tier) RateAt(elapsed time.Duration) float64 {
	switch t.Model {
	case Open:
		return t.Rate
	case Ramping:
		from, at := t.Rate, time.Duration(0)
		for _, s := range t.Stages {
			if elapsed < at+s.Duration {
				f := float64(elapsed-at) / float64(s.Duration)
				return from + (s.Target-from)*f
			}
			from, at = s.Target, at+s.Duration
		}
		return from
	}
	return 0
}
