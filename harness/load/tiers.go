package load

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/harness/load/pace"
	"github.com/thoughtbox-bench/tbbench/harness/load/segment"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// runTier arranges the tier's phases against the targets and adds their
// results to rep.
func (r *runner) runTier(ctx context.Context, t workload.Tier, targets []target.Target, rep *loadreport.Report) error {
	switch t.Name {
	case workload.Stress:
		r.watcher.waitReady(ctx)
		for i, tg := range targets {
			rep.Stress = append(rep.Stress, r.ladder(ctx, t, r.o.Subjects[i].Label, tg, rep))
		}
	case workload.LongSession:
		r.watcher.waitReady(ctx)
		for i, tg := range targets {
			if tg.Info().Kind == target.KindNoop {
				continue
			}
			rep.LongSessions = append(rep.LongSessions, r.longSession(ctx, t, r.o.Subjects[i].Label, tg, rep))
		}
	case workload.Listing:
		r.watcher.waitReady(ctx)
		for i, tg := range targets {
			if tg.Info().Kind == target.KindNoop {
				continue
			}
			rep.Listings = append(rep.Listings, r.listing(ctx, t, r.o.Subjects[i].Label, tg, rep)...)
		}
	default: // smoke, regression, soak: rounds of one load model
		if t.Warmup > 0 {
			var warmups []PhaseSpec
			for i, tg := range targets {
				warmups = append(warmups, r.warmupPhase(t, r.o.Subjects[i].Label, tg))
			}
			rep.Phases = append(rep.Phases, r.runPhases(ctx, warmups, t.SideBySide)...)
		}
		// The warm-ups give the watcher time to start; the rounds are
		// what it must see.
		r.watcher.waitReady(ctx)
		rounds := max(t.Rounds, 1)
		for round := 1; round <= rounds; round++ {
			// Interleave the targets, rotating the order every round so
			// that none always runs first or last (or, side by side, all
			// at once).
			var specs []PhaseSpec
			for k := range targets {
				i := (k + round - 1) % len(targets)
				label := r.o.Subjects[i].Label
				name := fmt.Sprintf("%s %s", t.Name, label)
				if rounds > 1 {
					name = fmt.Sprintf("%s %s round %d", t.Name, label, round)
				}
				specs = append(specs, r.modelPhase(t, name, label, round, targets[i]))
			}
			rep.Phases = append(rep.Phases, r.runPhases(ctx, specs, t.SideBySide)...)
		}
		r.fanOutPhase(ctx, t, targets, rep)
	}
	return ctx.Err()
}

// runPhases runs specs one after another, or all at the same time when
// sideBySide is set, and returns their results in the order of specs.
func (r *runner) runPhases(ctx context.Context, specs []PhaseSpec, sideBySide bool) []loadreport.PhaseResult {
	out := make([]loadreport.PhaseResult, len(specs))
	if !sideBySide {
		for i, s := range specs {
			out[i] = r.runPhase(ctx, s)
		}
		return out
	}
	var wg sync.WaitGroup
	for i, s := range specs {
		wg.Go(func() { out[i] = r.runPhase(ctx, s) })
	}
	wg.Wait()
	return out
}

// modelPhase builds a phase of the tier's load model, this segment's share.
func (r *runner) modelPhase(t workload.Tier, name, label string, round int, tg target.Target) PhaseSpec {
	seg := r.o.Segment
	spec := PhaseSpec{Name: name, Label: label, Round: round, Target: tg, Thresholds: t.Thresholds, Verify: true}
	switch t.Model {
	case workload.Closed:
		spec.Users, spec.TotalUsers = max(seg.Users(t.Users), 1), t.Users
		spec.Closed = true
		spec.Executor = &pace.Closed{Users: spec.Users, Duration: t.Duration, GracefulStop: 5 * time.Second}
	case workload.Ramping:
		stages := make([]pace.Stage, len(t.Stages))
		for i, s := range t.Stages {
			stages[i] = pace.Stage{Target: s.Target, Duration: s.Duration}
		}
		spec.Users, spec.TotalUsers = max(seg.Users(t.MaxUsers), 1), t.MaxUsers
		spec.Rate = t.Rate
		spec.Executor = &pace.Open{Pacer: segmentPacer{pace.Ramping{Start: t.Rate, Stages: stages}, seg}, Duration: t.Duration,
			MaxUsers: spec.Users, GracefulStop: 5 * time.Second, OnDrop: r.live.drop, RealTime: r.o.RealTime}
	default:
		spec = r.openPhase(spec, t.Rate, t.Duration, t.MaxUsers)
	}
	return spec
}

// warmupPhase is the tier's load model for t.Warmup, unmeasured: no
// thresholds, and marked so that rounds, comparisons and scores leave it
// out. Its thoughts are still read back.
func (r *runner) warmupPhase(t workload.Tier, label string, tg target.Target) PhaseSpec {
	t.Duration, t.Thresholds = t.Warmup, nil
	if t.Model == workload.Ramping {
		t.Model = workload.Open // the starting rate, for the warm-up's length
	}
	spec := r.modelPhase(t, fmt.Sprintf("%s %s warm-up", t.Name, label), label, 0, tg)
	spec.Warmup = true
	return spec
}

// openPhase makes spec a constant-rate phase: this segment's share of the
// arrivals and users.
func (r *runner) openPhase(spec PhaseSpec, rate float64, d time.Duration, users int) PhaseSpec {
	seg := r.o.Segment
	spec.Users, spec.TotalUsers = max(seg.Users(users), 1), users
	spec.Rate = rate
	spec.Executor = &pace.Open{Pacer: segmentPacer{pace.Constant{Rate: rate}, seg}, Duration: d, MaxUsers: spec.Users,
		GracefulStop: 5 * time.Second, OnDrop: r.live.drop, RealTime: r.o.RealTime}
	return spec
}

// segmentPacer keeps the arrivals of the whole run's schedule that a
// segment owns: every n-th, starting with its index. The n segments together
// make exactly the whole schedule, ramps included.
type segmentPacer struct {
	whole pace.Pacer
	seg   segment.Segment
}

func (p segmentPacer) Due(n uint64) (time.Duration, bool) {
	return p.whole.Due(n*uint64(p.seg.Count) + uint64(p.seg.Index-1))
}

func (p segmentPacer) Pace(elapsed time.Duration, arrivals uint64) (time.Duration, bool) {
	at, ok := p.Due(arrivals)
	if !ok {
		return 0, true
	}
	return max(at-elapsed, 0), false
}

func (p segmentPacer) RateAt(elapsed time.Duration) float64 {
	return p.whole.RateAt(elapsed) / float64(p.seg.Count)
}

// halfSteps is how many rungs' time the phase at half the maximum
// sustainable rate lasts: at half the rate, its p99 rests on more calls
// than a rung's.
const halfSteps = 3

// ladder climbs the stress tier's rates until a rung misses its SLO twice in
// a row; the highest rung that met it is the maximum sustainable rate.
//
// With a warm-up the ladder starts with an unmeasured phase at the first
// rung's rate. After it, a phase at half the maximum sustainable rate,
// halfSteps rungs long, reports the latency a target keeps with room to
// spare (not in a segment: each segment's maximum is its own).
func (r *runner) ladder(ctx context.Context, t workload.Tier, label string, tg target.Target, rep *loadreport.Report) loadreport.StressResult {
	out := loadreport.StressResult{Label: label}
	rungs := t.Ladder.Rungs()
	if t.Warmup > 0 && len(rungs) > 0 {
		spec := PhaseSpec{Name: fmt.Sprintf("stress %s warm-up", label), Label: label, Target: tg, Warmup: true, Verify: true}
		rep.Phases = append(rep.Phases, r.runPhase(ctx, r.openPhase(spec, rungs[0], t.Warmup, t.MaxUsers)))
	}
	failures := 0
	for _, rate := range rungs {
		spec := PhaseSpec{Name: fmt.Sprintf("stress %s %.0f/s", label, rate), Label: label, Target: tg,
			Thresholds: t.Ladder.SLO, Verify: true, Probe: true}
		spec = r.openPhase(spec, rate, t.Ladder.StepDuration, t.MaxUsers)
		p := r.runPhase(ctx, spec)
		rep.Phases = append(rep.Phases, p)
		total := p.Metrics.Total()
		rung := loadreport.Rung{Rate: rate, Achieved: total.Throughput, P99Ms: loadreport.P99Ms(total), ErrorRate: total.ErrorRate,
			DroppedRate: p.Metrics.DroppedRatio(), Passed: p.Passed()}
		out.Rungs = append(out.Rungs, rung)
		if rung.Passed {
			out.MaxSustainable, failures = rate, 0
		} else if failures++; failures == 2 {
			break
		}
		if ctx.Err() != nil {
			break
		}
	}
	if out.MaxSustainable > 0 && r.o.Segment.Count <= 1 && ctx.Err() == nil {
		half := out.MaxSustainable / 2
		spec := PhaseSpec{Name: fmt.Sprintf("stress %s %.0f/s, half the maximum sustainable rate", label, half), Label: label,
			Target: tg, Thresholds: t.Ladder.SLO, Verify: true}
		p := r.runPhase(ctx, r.openPhase(spec, half, halfSteps*t.Ladder.StepDuration, t.MaxUsers))
		rep.Phases = append(rep.Phases, p)
		total := p.Metrics.Total()
		out.Half = &loadreport.Rung{Rate: half, Achieved: total.Throughput, P99Ms: loadreport.P99Ms(total), ErrorRate: total.ErrorRate,
			DroppedRate: p.Metrics.DroppedRatio(), Passed: p.Passed()}
		out.HalfThoughtP99Ms = loadreport.OpP99Ms(p.Metrics, string(workload.OpThought))
	}
	return out
}
