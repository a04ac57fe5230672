package loadreport

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/load/threshold"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
)

// Ratio is one subject's figure over a reference's, paired round by round:
// in each round both ran back to back on the same machine, so whatever
// slowed the machine in that round slowed both, and the ratio keeps what
// differs between the servers. The estimate is the geometric mean of the
// rounds' ratios and the interval a 95 % Student t interval on their
// logarithms (RatioConfidence).
type Ratio struct {
	// Subject is the label of the subject measured.
	Subject string `json:"subject"`
	// Versus is threshold.VersusCeiling or threshold.VersusBaseline, and
	// Reference the label of that subject.
	Versus    string `json:"vs"`
	Reference string `json:"reference"`
	// Figure is the aggregation compared: p(N), med, avg, min, max (of the
	// service time, from the send to the answer), cpu_per_call, rss or
	// throughput; Op narrows a service-time figure to one operation.
	Figure string `json:"figure"`
	Op     string `json:"op,omitempty"`
	// Estimate is the geometric mean of the rounds' ratios; Low and High
	// bound its confidence interval when Bounded (two rounds or more).
	Estimate float64 `json:"estimate"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	Bounded  bool    `json:"bounded"`
	// Rounds holds each paired round's ratio, in round order.
	Rounds []float64 `json:"rounds"`
}

// RatioConfidence is the confidence level of a Ratio's interval.
const RatioConfidence = 0.95

// Interval returns the ratio as a threshold.Interval: unbounded (−∞, +∞)
// without an interval.
func (r Ratio) Interval() threshold.Interval {
	iv := threshold.Interval{Estimate: r.Estimate, Low: r.Low, High: r.High, N: len(r.Rounds)}
	if !r.Bounded {
		iv.Low, iv.High = math.Inf(-1), math.Inf(1)
	}
	return iv
}

// Name names the figure for people: "thought p(99)", "cpu_per_call".
func (r Ratio) Name() string {
	if r.Op != "" {
		return r.Op + " " + r.Figure
	}
	return r.Figure
}

// String renders the ratio: "1.234× [1.100, 1.380] over 8 rounds".
func (r Ratio) String() string { return threshold.FormatInterval(r.Interval()) }

// pairedRatio summarises the ratios of the rounds both a subject and its
// reference measured with a positive figure.
func pairedRatio(subject, reference map[int]float64) Ratio {
	var out Ratio
	var logs []float64
	for _, round := range sortedRounds(subject) {
		s, ref := subject[round], reference[round]
		if s > 0 && ref > 0 {
			out.Rounds = append(out.Rounds, s/ref)
			logs = append(logs, math.Log(s/ref))
		}
	}
	n := len(logs)
	if n == 0 {
		return out
	}
	var mean float64
	for _, l := range logs {
		mean += l
	}
	mean /= float64(n)
	out.Estimate = math.Exp(mean)
	out.Low, out.High = out.Estimate, out.Estimate
	if n < 2 {
		return out
	}
	var ss float64
	for _, l := range logs {
		ss += (l - mean) * (l - mean)
	}
	half := studentT975(n-1) * math.Sqrt(ss/float64(n-1)/float64(n))
	out.Low, out.High, out.Bounded = math.Exp(mean-half), math.Exp(mean+half), true
	return out
}

// studentT975 returns the 97.5th percentile of Student's t distribution
// with df degrees of freedom: the half-width factor of a two-sided 95 %
// interval.
func studentT975(df int) float64 {
	table := []float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	switch {
	case df < 1:
		return math.Inf(1)
	case df <= len(table):
		return table[df-1]
	case df <= 60:
		return 2.000 + (2.042-2.000)*float64(60-df)/30
	case df <= 120:
		return 1.980 + (2.000-1.980)*float64(120-df)/60
	}
	return 1.960
}

// figure reads one aggregation off a measured phase: of the service time
// (send to answer) in nanoseconds, narrowed to op when given; the server's
// CPU time per call in microseconds and its largest RSS in MiB (when the
// server is a child process); throughput in calls per second. ok is false
// when the phase has no such figure.
func figure(p PhaseResult, agg threshold.Aggregation, op string) (float64, bool) {
	switch agg.Func {
	case threshold.CPUPerCall:
		if p.Process == nil || p.Process.CPUPerCallUs <= 0 {
			return 0, false
		}
		return p.Process.CPUPerCallUs, true
	case threshold.RSS:
		if p.Process == nil || p.Process.MaxRSSMiB <= 0 {
			return 0, false
		}
		return p.Process.MaxRSSMiB, true
	case threshold.ThroughputOf:
		if p.Metrics == nil {
			return 0, false
		}
		return throughput(p.Metrics), true
	}
	var tags map[string]string
	if op != "" {
		tags = map[string]string{"op": op}
	}
	// The service time (from the send to the answer), not the latency from
	// the scheduled start: how late the generator sent a call is the
	// machine's doing, and a busy machine makes it late for every subject
	// by a different chance, while what the server took is its own.
	return Lookup(p.Metrics)("service", tags, agg)
}

// ratioFigure is a figure the report compares between subjects.
type ratioFigure struct {
	agg threshold.Aggregation
	op  string
}

func (f ratioFigure) String() string { return f.op + " " + f.agg.String() }

// wholePhase reports whether the figure is the phase's as a whole (CPU
// per call, RSS, throughput), which no operation narrows.
func (f ratioFigure) wholePhase() bool {
	return f.agg.Func == threshold.CPUPerCall || f.agg.Func == threshold.RSS || f.agg.Func == threshold.ThroughputOf
}

// figureOf returns the figure a relative threshold compares.
func figureOf(t threshold.Threshold) ratioFigure {
	f := ratioFigure{agg: t.Expression.Aggregation, op: t.Selector.Tags[threshold.TagOp]}
	if f.wholePhase() {
		f.op = ""
	}
	return f
}

// defaultRatioFigures are compared for every subject, threshold or not:
// throughput, the p99 of every call, the thought's p50 and p99, the
// server's CPU per call and its largest RSS.
var defaultRatioFigures = []ratioFigure{
	{agg: threshold.Aggregation{Func: threshold.ThroughputOf}},
	{agg: threshold.Aggregation{Func: threshold.Percentile, Percentile: 99}},
	{agg: threshold.Aggregation{Func: threshold.Percentile, Percentile: 50}, op: string(workload.OpThought)},
	{agg: threshold.Aggregation{Func: threshold.Percentile, Percentile: 99}, op: string(workload.OpThought)},
	{agg: threshold.Aggregation{Func: threshold.CPUPerCall}},
	{agg: threshold.Aggregation{Func: threshold.RSS}},
}

// reference returns the label of the subject that subject is judged
// against by ratios of kind vs: the ceiling; or its own baseline
// (Baselines), else the run's (Baseline). A reference is never judged
// against itself, and a reference that is not a subject of the run is
// none.
func (r *Report) reference(vs, subject string) (string, bool) {
	if subject == CeilingLabel {
		return "", false
	}
	ref := ""
	switch vs {
	case threshold.VersusCeiling:
		ref = CeilingLabel
	case threshold.VersusBaseline:
		ref = r.Baseline
		if own, ok := r.Baselines[subject]; ok {
			ref = own
		}
	}
	if ref == "" || ref == subject || !slices.Contains(r.labels(), ref) {
		return "", false
	}
	return ref, true
}

// hasReference reports whether any subject of the run has a reference of
// kind vs.
func (r *Report) hasReference(vs string) bool {
	return slices.ContainsFunc(r.labels(), func(l string) bool { _, ok := r.reference(vs, l); return ok })
}

// computeRatios pairs every subject's rounds with the ceiling's and the
// baseline's, for the default figures and every figure a relative
// threshold names.
func (r *Report) computeRatios() {
	r.Ratios = []Ratio{}
	figs := slices.Clone(defaultRatioFigures)
	for _, o := range r.Relative {
		t, err := threshold.Parse(o.Selector, o.Expression)
		if err != nil {
			continue
		}
		f := figureOf(t)
		if !slices.ContainsFunc(figs, func(g ratioFigure) bool { return g.String() == f.String() }) {
			figs = append(figs, f)
		}
	}
	for _, vs := range []string{threshold.VersusCeiling, threshold.VersusBaseline} {
		for _, subject := range r.labels() {
			ref, ok := r.reference(vs, subject)
			if !ok || len(r.roundPhases(subject)) == 0 {
				continue
			}
			for _, f := range figs {
				ratio := pairedRatio(r.roundFigures(subject, f), r.roundFigures(ref, f))
				if len(ratio.Rounds) == 0 {
					continue
				}
				ratio.Subject, ratio.Versus, ratio.Reference, ratio.Figure, ratio.Op = subject, vs, ref, f.agg.String(), f.op
				r.Ratios = append(r.Ratios, ratio)
			}
		}
	}
}

// roundFigures returns a label's figure f by round.
func (r *Report) roundFigures(label string, f ratioFigure) map[int]float64 {
	out := map[int]float64{}
	for round, p := range r.roundPhases(label) {
		if v, ok := figure(p, f.agg, f.op); ok {
			out[round] = v
		}
	}
	return out
}

// ratio returns the computed ratio of subject against the reference vs
// for figure f.
func (r *Report) ratio(subject, vs string, f ratioFigure) (Ratio, bool) {
	for _, x := range r.Ratios {
		if x.Subject == subject && x.Versus == vs && x.Figure == f.agg.String() && x.Op == f.op {
			return x, true
		}
	}
	return Ratio{}, false
}

// judgeRelative judges every relative threshold for every subject it
// applies to, on the confidence interval of the paired ratios, and returns
// the outcomes: one per threshold and subject, or one "not applicable"
// naming why the run had nothing to compare.
func (r *Report) judgeRelative(specs []ThresholdOutcome) []ThresholdOutcome {
	out := []ThresholdOutcome{}
	for _, spec := range specs {
		t, err := threshold.Parse(spec.Selector, spec.Expression)
		if err != nil {
			spec.Status, spec.Observed = "unreadable", err.Error()
			out = append(out, spec)
			continue
		}
		vs := t.Selector.Tags[threshold.TagVersus]
		if !r.hasReference(vs) {
			spec.Status, spec.Observed = threshold.NotApplicable.String(), noReference(vs)
			out = append(out, spec)
			continue
		}
		f := figureOf(t)
		judged := 0
		for _, subject := range r.labels() {
			ref, ok := r.reference(vs, subject)
			if !ok || len(r.roundPhases(subject)) == 0 {
				continue
			}
			if want, ok := t.Selector.Tags[threshold.TagSubject]; ok && want != subject {
				continue
			}
			o := spec
			o.Subject, o.Reference = subject, ref
			judged++
			x, ok := r.ratio(subject, vs, f)
			if !ok {
				o.Status, o.Observed = threshold.NoData.String(), fmt.Sprintf("no %s figure of both %s and %s in any round", f.agg, subject, ref)
				if f.agg.Func == threshold.CPUPerCall || f.agg.Func == threshold.RSS {
					// Measured only for child processes: a URL or in-process
					// server has none, which is no failure of the server.
					o.Status = threshold.NotApplicable.String()
					o.Observed = fmt.Sprintf("%s is measured only for servers the harness starts as child processes", f.agg)
				}
				out = append(out, o)
				continue
			}
			o.Status, o.Observed = threshold.JudgeInterval(t.Expression, x.Interval()).String(), x.String()
			out = append(out, o)
		}
		if judged == 0 {
			spec.Status, spec.Observed = threshold.NotApplicable.String(), "no subject to compare with its "+vs
			out = append(out, spec)
		}
	}
	return out
}

func noReference(vs string) string {
	if vs == threshold.VersusCeiling {
		return "the run has no ceiling (it is measured over HTTP only, and --ceiling=false leaves it out)"
	}
	return "the run has no baseline (name one with --baseline; --compare-storage compares storage modes with the ceiling only)"
}

// ceilingHeld judges the tier's ceiling conditions on the ceiling's
// measured rounds together and returns why the machine could not sustain
// the tier ("" when it could, or when there is no ceiling or condition).
func (r *Report) ceilingHeld() string {
	var ceiling *Summary
	for i := range r.Summaries {
		if r.Summaries[i].Label == CeilingLabel {
			ceiling = &r.Summaries[i]
		}
	}
	if ceiling == nil || ceiling.Merged == nil {
		for i := range r.CeilingConditions {
			r.CeilingConditions[i].Status, r.CeilingConditions[i].Observed = threshold.NotApplicable.String(), "no ceiling in this run"
		}
		return ""
	}
	var missed []string
	for i, c := range r.CeilingConditions {
		t, err := threshold.Parse(c.Selector, c.Expression)
		if err != nil {
			r.CeilingConditions[i].Status, r.CeilingConditions[i].Observed = "unreadable", err.Error()
			missed = append(missed, c.Threshold+": "+err.Error())
			continue
		}
		res := threshold.Evaluate(t, Lookup(ceiling.Merged))
		r.CeilingConditions[i].Status, r.CeilingConditions[i].Observed = res.Status.String(), res.ObservedText()
		if res.Status != threshold.Passed {
			missed = append(missed, fmt.Sprintf("%s %s %s (limit %s)", ceilingFigureName(t), t.Expression.Aggregation, res.ObservedText(), t.Expression.Text))
		}
	}
	if len(missed) == 0 {
		return ""
	}
	what := "the tier"
	if p := r.firstRoundPhase(CeilingLabel); p != nil && p.Rate > 0 {
		what = fmt.Sprintf("%.0f calls/s", p.Rate)
	}
	return fmt.Sprintf("the machine could not sustain %s: the no-op ceiling's %s", what, strings.Join(missed, ", "))
}

func ceilingFigureName(t threshold.Threshold) string {
	name := t.Selector.Metric
	if op := t.Selector.Tags["op"]; op != "" {
		name = op + " " + name
	}
	return name
}

// firstRoundPhase returns a label's first measured round, nil without one.
func (r *Report) firstRoundPhase(label string) *PhaseResult {
	phases := r.roundPhases(label)
	rounds := sortedRounds(phases)
	if len(rounds) == 0 {
		return nil
	}
	p := phases[rounds[0]]
	return &p
}

// nothingJudged returns why the relative thresholds could judge nothing:
// some apply, and every one of them rests on fewer than two paired rounds.
func (r *Report) nothingJudged() string {
	applicable, rounds := 0, 0
	for _, o := range r.Relative {
		if o.Status == threshold.NotApplicable.String() || o.Subject == "" {
			continue
		}
		applicable++
		for _, x := range r.Ratios {
			if x.Subject == o.Subject && x.Reference == o.Reference && x.Bounded {
				return ""
			}
			if x.Subject == o.Subject && x.Reference == o.Reference {
				rounds = max(rounds, len(x.Rounds))
			}
		}
	}
	if applicable == 0 {
		return ""
	}
	return fmt.Sprintf("nothing judged: %d relative threshold(s) rest on %d paired round(s), which give no confidence interval; run at least 2 rounds (--rounds; the regression tier has 8)", applicable, rounds)
}
