package load

import (
	"context"
	"slices"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// ObservatoryOptions ask a run to measure the same server with its
// Observatory off and on, as two subjects in interleaved rounds; the report
// compares them (loadreport's Report.CompareObservatory).
type ObservatoryOptions struct {
	// Off and On are the labels of the two subjects.
	Off, On string
	// FanOut, when set, measures the delivery of thought:added to
	// WebSocket clients of the On subject's Observatory in a phase of its
	// own after the rounds (FanOutLabelSuffix).
	FanOut FanOutProbe
}

// FanOutProbe measures an Observatory's fan-out: Start is called before
// the fan-out phase, Answered for every acknowledged main-chain thought of
// that phase (from the users' goroutines), Finish after it.
type FanOutProbe interface {
	Start(ctx context.Context, t target.Target) error
	Answered(session string, thought int, at time.Time)
	Finish() loadreport.FanOutResult
}

// FanOutLabelSuffix labels the phase that measures the fan-out: the On
// subject under the tier's load model once more, after the rounds, with
// the probe's clients subscribed. It is left out of the rounds and their
// comparison, so the clients' reading does not weigh on the cost figure.
const FanOutLabelSuffix = " fan-out"

// observatoryTap is the function the users of a phase on label call with
// each acknowledged main-chain thought (nil when none listens).
func (o Options) observatoryTap(label string) func(session string, thought int, at time.Time) {
	if o.Observatory == nil || o.Observatory.FanOut == nil || label != o.Observatory.On+FanOutLabelSuffix {
		return nil
	}
	return o.Observatory.FanOut.Answered
}

// fanOutPhase runs the fan-out phase of a rounds tier, when the run asks
// for one, and keeps what the probe measured.
func (r *runner) fanOutPhase(ctx context.Context, t workload.Tier, targets []target.Target, rep *loadreport.Report) {
	o := r.o.Observatory
	if o == nil || o.FanOut == nil || ctx.Err() != nil {
		return
	}
	notMeasured := func(why string) {
		r.fanOut = &loadreport.FanOutResult{FigureP99Ms: loadreport.FanOutFigureP99Ms, Note: "not measured: " + why}
	}
	i := slices.IndexFunc(r.o.Subjects, func(s Subject) bool { return s.Label == o.On })
	if i < 0 {
		notMeasured("no subject is labelled " + o.On)
		return
	}
	if err := o.FanOut.Start(ctx, targets[i]); err != nil {
		notMeasured(err.Error())
		return
	}
	label := o.On + FanOutLabelSuffix
	rep.Phases = append(rep.Phases, r.runPhase(ctx, r.modelPhase(t, t.Name+" "+label, label, 0, targets[i])))
	res := o.FanOut.Finish()
	r.fanOut = &res
}
