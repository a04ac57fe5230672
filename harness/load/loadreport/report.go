package loadreport

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/perf/benchmath"

	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
	"github.com/thoughtbox-bench/tbbench/harness/load/threshold"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// SchemaVersion is the version of load.json this package writes and reads.
const SchemaVersion = "1"

// Report is the result of a load run: load.json.
type Report struct {
	SchemaVersion string             `json:"schemaVersion"`
	RunID         string             `json:"runId"`
	Tier          string             `json:"tier"`
	Seed          int64              `json:"seed"`
	Nonce         string             `json:"nonce"`
	Segments      []string           `json:"segments"`
	Workload      string             `json:"workload"`
	WorkloadHash  string             `json:"workloadHash"`
	StartedAt     time.Time          `json:"startedAt"`
	FinishedAt    time.Time          `json:"finishedAt"`
	Machine       scorecards.Machine `json:"machine"`
	Targets       []TargetInfo       `json:"targets"`
	Phases        []PhaseResult      `json:"phases"`
	// Summaries aggregate each target's phases over the rounds.
	Summaries []Summary `json:"summaries"`
	// Comparisons are throughput and latency ratios between targets, the
	// ceiling included, over paired rounds.
	Comparisons []Comparison `json:"comparisons"`
	// Baseline is the label of the subject the others are judged against
	// (ratio{vs:baseline}); "" when the run has none.
	Baseline string `json:"baseline,omitempty"`
	// Baselines names, for a subject judged against a baseline of its own
	// instead of Baseline, that subject's label: each build against the
	// other build in the same storage mode and era (tbbench load
	// --base-build), each era against the baseline in that era.
	Baselines map[string]string `json:"baselines,omitempty"`
	// Ratios are every subject's figures over the ceiling's and the
	// baseline's, paired round by round, with confidence intervals.
	Ratios []Ratio `json:"ratios"`
	// Relative are the tier's relative thresholds (the ratio metric),
	// judged per subject on the confidence intervals of Ratios.
	Relative []ThresholdOutcome `json:"relative"`
	// CeilingConditions are what the no-op ceiling had to hold for the run
	// to judge anything (the tier's ceiling field), each judged on the
	// ceiling's rounds together.
	CeilingConditions []ThresholdOutcome `json:"ceilingConditions,omitempty"`
	// Inconclusive says why the run could not judge the servers, when it
	// could not: the ceiling missed one of its conditions, or a relative
	// threshold's interval straddled its limit. The verdict is then
	// VerdictInconclusive unless a thought was lost or a phase aborted.
	Inconclusive string `json:"inconclusive,omitempty"`
	// NothingJudged says why no relative threshold could judge anything,
	// when none could: every one that applies rests on a single paired
	// round, which gives no confidence interval. tbbench load then exits 2.
	NothingJudged string              `json:"nothingJudged,omitempty"`
	Stress        []StressResult      `json:"stress,omitempty"`
	LongSessions  []LongSessionResult `json:"longSessions,omitempty"`
	Listings      []ListingResult     `json:"listings,omitempty"`
	// Observability holds the checks of the run's Watcher (package load;
	// harness/promwatch: the sidecar's telemetry in Prometheus after the
	// load); ObservabilityNote says why there are none when the watch did
	// not apply.
	Observability     []scorecards.Check `json:"observability,omitempty"`
	ObservabilityNote string             `json:"observabilityNote,omitempty"`
	// Observatory is the comparison of a server with its Observatory off
	// and on, and its fan-out (observatory.go), when the run made one.
	Observatory *ObservatoryResult `json:"observatory,omitempty"`
	// Problems lists why the run failed: failed thresholds, lost thoughts,
	// aborted phases. Empty when it passed or was inconclusive.
	Problems []string `json:"problems"`
	// Notes are what an inconclusive run did not judge: the thresholds the
	// busy machine missed.
	Notes   []string `json:"notes,omitempty"`
	Verdict string   `json:"verdict"`
	// thresholdsFailed is set by judge: the run failed on a threshold.
	thresholdsFailed bool
}

// CeilingLabel labels the no-op server measured beside the real targets:
// the reference of the ratios to the ceiling and of the ceiling's
// conditions.
const CeilingLabel = "ceiling"

// TargetInfo describes a measured target.
type TargetInfo struct {
	Label     string `json:"label"`
	Kind      string `json:"kind"`
	Address   string `json:"address"`
	Transport string `json:"transport"`
	Storage   string `json:"storage,omitempty"`
	// Profile is the family the scripts were played as (detected from
	// tools/list unless given); LeftOut the script operations that family
	// lacks, which were left out of its mix.
	Profile         string   `json:"profile,omitempty"`
	ProfileDetected bool     `json:"profileDetected,omitempty"`
	LeftOut         []string `json:"leftOut,omitempty"`
	// DataFilesystem names the file system of the subject's data directory
	// (harness/fsinfo), when the harness knows the directory: what a new
	// file costs a storage mode depends on it.
	DataFilesystem string `json:"dataFilesystem,omitempty"`
}

// Stat is a median with its 95 % confidence interval over rounds
// (distribution-free, golang.org/x/perf/benchmath). With too few rounds for
// that confidence (fewer than 6), the interval is the range of the values
// and RangeOnly is set.
type Stat struct {
	Median    float64 `json:"median"`
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
	N         int     `json:"n"`
	RangeOnly bool    `json:"rangeOnly,omitempty"`
}

// Summarize returns the median of values with its confidence interval.
func Summarize(values []float64) Stat { return stat(values) }

func stat(values []float64) Stat {
	if len(values) == 0 {
		return Stat{}
	}
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(values, &benchmath.DefaultThresholds), 0.95)
	out := Stat{Median: s.Center, Low: s.Lo, High: s.Hi, N: len(values)}
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) || math.IsNaN(s.Lo) || math.IsNaN(s.Hi) {
		out.Low, out.High, out.RangeOnly = slices.Min(values), slices.Max(values), true
	}
	return out
}

// String renders "median [low, high]", or "median (range low–high)".
func (s Stat) String() string {
	if s.RangeOnly {
		return fmt.Sprintf("%.4g (range %.4g–%.4g, n=%d)", s.Median, s.Low, s.High, s.N)
	}
	return fmt.Sprintf("%.4g [%.4g, %.4g]", s.Median, s.Low, s.High)
}

// Summary aggregates one target's phases of a rounds tier.
type Summary struct {
	Label string `json:"label"`
	// Throughput is completed calls per second, per round.
	Throughput Stat `json:"throughput"`
	// P99Ms is the overall p99 latency per round, ThoughtP99Ms the
	// thought's.
	P99Ms        Stat   `json:"p99Ms"`
	ThoughtP99Ms Stat   `json:"thoughtP99Ms"`
	Calls        uint64 `json:"calls"`
	Errors       uint64 `json:"errors"`
	Dropped      uint64 `json:"dropped"`
	Acknowledged int    `json:"acknowledged"`
	Lost         int    `json:"lost"`
	Unread       int    `json:"unread,omitempty"`
	// CPUPercent is the server process's CPU use, when measured, and
	// CPUPerCallUs its CPU time per call in microseconds.
	CPUPercent   *Stat   `json:"cpuPercent,omitempty"`
	CPUPerCallUs *Stat   `json:"cpuPerCallUs,omitempty"`
	MaxRSSMiB    float64 `json:"maxRssMiB,omitempty"`
	// ClientCPUPerCallUs is the client's CPU time per call (the harness
	// process's, PhaseResult.ClientCPUPerCallUs), when measured.
	ClientCPUPerCallUs *Stat `json:"clientCpuPerCallUs,omitempty"`
	// Merged holds every round's metrics merged.
	Merged *metrics.Snapshot `json:"merged"`
}

// Comparison is a ratio between two targets over paired rounds.
type Comparison struct {
	// Metric is "throughput" or "thought p99".
	Metric string `json:"metric"`
	A      string `json:"a"`
	B      string `json:"b"`
	// Ratio is A's value over B's, per round.
	Ratio Stat `json:"ratio"`
}

// StressResult is one target's climb of the rate ladder.
type StressResult struct {
	Label string `json:"label"`
	Rungs []Rung `json:"rungs"`
	// MaxSustainable is the highest rate whose rung met the SLO (0: none).
	MaxSustainable float64 `json:"maxSustainableRate"`
	// Half is a phase at half the maximum sustainable rate, run after the
	// ladder when there is one (not in a segment of a larger run), and
	// HalfThoughtP99Ms its thought p99.
	Half             *Rung   `json:"half,omitempty"`
	HalfThoughtP99Ms float64 `json:"halfThoughtP99Ms,omitempty"`
}

// Rung is one step of the ladder.
type Rung struct {
	Rate        float64 `json:"rate"`
	Achieved    float64 `json:"achieved"`
	P99Ms       float64 `json:"p99Ms"`
	ErrorRate   float64 `json:"errorRate"`
	DroppedRate float64 `json:"droppedRate"`
	Passed      bool    `json:"passed"`
}

// The verdicts of a report.
const (
	VerdictPass = "pass"
	VerdictFail = "fail"
	// VerdictInconclusive is a run that could not tell: the no-op ceiling
	// could not hold the tier, a relative threshold's interval straddled
	// its limit, or a phase got no thought call answered. Never a pass,
	// never a fail.
	VerdictInconclusive = "inconclusive"
)

// RunInfo is what a report records of its run before the first phase.
type RunInfo struct {
	// Workload is the workload the run follows (its source and hash are
	// recorded), Tier the tier it runs.
	Workload *workload.Workload
	Tier     workload.Tier
	Seed     int64
	// Nonce is carried by every thought of the run.
	Nonce string
	// Segment is this process's share of the run ("1/1" for the whole).
	Segment string
	// Baseline is the label of the subject the others are judged against
	// by ratio{vs:baseline} thresholds; "" for none.
	Baseline string
	// Baselines overrides Baseline for the subjects it names (see
	// Report.Baselines).
	Baselines map[string]string
}

// New returns the report of a run about to start: its identity, the
// machine, and the tier's relative thresholds and ceiling conditions, to be
// judged by Finish once the phases are in.
func New(run RunInfo) *Report {
	b, _ := json.Marshal(run.Workload)
	h := sha256.Sum256(b)
	t := run.Tier
	r := &Report{SchemaVersion: SchemaVersion, Tier: t.Name, Seed: run.Seed, Nonce: run.Nonce,
		Segments: []string{run.Segment}, Workload: run.Workload.Source, WorkloadHash: hex.EncodeToString(h[:8]),
		StartedAt: time.Now().UTC(), Machine: scorecards.CurrentMachine(), Baseline: run.Baseline,
		Baselines: maps.Clone(run.Baselines)}
	for _, x := range t.Thresholds {
		if x.Selector.Kind() == threshold.Ratio {
			r.Relative = append(r.Relative, unjudged(x))
		}
	}
	for _, x := range t.Ceiling {
		r.CeilingConditions = append(r.CeilingConditions, unjudged(x))
	}
	return r
}

// unjudged records a threshold to judge when the run is over.
func unjudged(t threshold.Threshold) ThresholdOutcome {
	return ThresholdOutcome{Threshold: t.String(), Selector: t.Selector.String(), Expression: t.Expression.Text}
}

// Finish ends a run's report once its phases (and stress, long-session and
// listing results) are in: it records the finishing time and computes the
// summaries, comparisons, paired ratios, the judging of the thresholds, the
// problems and the verdict.
func (r *Report) Finish() {
	r.FinishedAt = time.Now().UTC()
	r.summarise()
	r.judge()
}

// labels returns the targets' labels in order.
func (r *Report) labels() []string {
	out := make([]string, len(r.Targets))
	for i, t := range r.Targets {
		out[i] = t.Label
	}
	return out
}

// roundPhases returns a label's phases by round (rounds tiers only).
func (r *Report) roundPhases(label string) map[int]PhaseResult {
	out := map[int]PhaseResult{}
	for _, p := range r.Phases {
		if p.Label == label && !p.Warmup && (r.Tier == workload.Smoke || r.Tier == workload.Regression || r.Tier == workload.Soak) {
			out[max(p.Round, 1)] = p
		}
	}
	return out
}

func (r *Report) summarise() {
	defer r.computeRatios()
	// Empty, not nil: a tier without rounds (stress) still writes arrays.
	r.Summaries, r.Comparisons = []Summary{}, []Comparison{}
	values := map[string]map[int][2]float64{} // label → round → throughput, thought p99
	for _, label := range r.labels() {
		phases := r.roundPhases(label)
		if len(phases) == 0 {
			continue
		}
		s := Summary{Label: label}
		var tput, p99s, tp99, cpu, cpuPerCall, clientPerCall []float64
		values[label] = map[int][2]float64{}
		for _, round := range sortedRounds(phases) {
			p := phases[round]
			m := p.Metrics
			total := m.Total()
			tput = append(tput, total.Throughput)
			p99s = append(p99s, P99Ms(total))
			tp := OpP99Ms(m, string(workload.OpThought))
			tp99 = append(tp99, tp)
			values[label][round] = [2]float64{total.Throughput, tp}
			s.Calls += total.Calls
			s.Errors += total.Errors
			s.Dropped += p.Dropped
			if p.Verification != nil {
				s.Acknowledged += p.Verification.Acknowledged
				s.Lost += p.Verification.Missing
				s.Unread += p.Verification.Unread
			}
			if p.Process != nil {
				cpu = append(cpu, p.Process.CPUPercent)
				if p.Process.CPUPerCallUs > 0 {
					cpuPerCall = append(cpuPerCall, p.Process.CPUPerCallUs)
				}
				s.MaxRSSMiB = max(s.MaxRSSMiB, p.Process.MaxRSSMiB)
			}
			if p.ClientCPUPerCallUs > 0 {
				clientPerCall = append(clientPerCall, p.ClientCPUPerCallUs)
			}
			s.Merged = metrics.Merge(s.Merged, m)
		}
		s.Throughput, s.P99Ms, s.ThoughtP99Ms = stat(tput), stat(p99s), stat(tp99)
		if len(cpu) > 0 {
			c := stat(cpu)
			s.CPUPercent = &c
		}
		if len(cpuPerCall) > 0 {
			c := stat(cpuPerCall)
			s.CPUPerCallUs = &c
		}
		if len(clientPerCall) > 0 {
			c := stat(clientPerCall)
			s.ClientCPUPerCallUs = &c
		}
		r.Summaries = append(r.Summaries, s)
	}
	// Every target against the ceiling, then the real targets pairwise;
	// only targets with rounds (a stress ladder has none) are compared.
	var labels []string
	for _, l := range r.labels() {
		if _, ok := values[l]; ok {
			labels = append(labels, l)
		}
	}
	for _, a := range labels {
		if a == CeilingLabel {
			continue
		}
		if _, ok := values[CeilingLabel]; ok {
			r.Comparisons = append(r.Comparisons, compare("throughput", a, CeilingLabel, values, 0))
		}
	}
	for i, a := range labels {
		for _, b := range labels[i+1:] {
			if a == CeilingLabel || b == CeilingLabel {
				continue
			}
			r.Comparisons = append(r.Comparisons, compare("throughput", a, b, values, 0), compare("thought p99", a, b, values, 1))
		}
	}
}

// compare pairs rounds of a and b and summarises the ratios of figure k.
func compare(metric, a, b string, values map[string]map[int][2]float64, k int) Comparison {
	var ratios []float64
	for round, va := range values[a] {
		if vb, ok := values[b][round]; ok && vb[k] > 0 {
			ratios = append(ratios, va[k]/vb[k])
		}
	}
	sort.Float64s(ratios)
	return Comparison{Metric: metric, A: a, B: b, Ratio: stat(ratios)}
}

// sortedRounds returns the rounds of a map by round, in order.
func sortedRounds[V any](m map[int]V) []int { return slices.Sorted(maps.Keys(m)) }

// judge lists the run's problems and sets the verdict. A stress ladder's
// rungs above the maximum sustainable rate miss their SLO by design: the
// ladder fails only when no rung met it. A thought lost or a phase aborted
// fails the run whatever the machine did. Otherwise, when the no-op
// ceiling could not hold the tier's conditions, the run is inconclusive:
// its thresholds judged the machine, not the server, and are listed as
// notes. Then a failed threshold (absolute or relative) fails the run, and
// a relative threshold whose interval straddles its limit makes it
// inconclusive, as does a phase in which no thought call was answered
// (there is nothing to read back). Thought calls answered without an
// acknowledgement fail it.
func (r *Report) judge() {
	r.Problems, r.Notes = []string{}, []string{}
	var thresholds, idle, unread []string
	for _, p := range r.Phases {
		if p.Aborted != "" && !p.Probe {
			r.Problems = append(r.Problems, p.Name+": "+p.Aborted)
		}
		for _, t := range p.Thresholds {
			if !passed(t) && !p.Probe {
				thresholds = append(thresholds, fmt.Sprintf("%s: threshold %s %s (observed %s)", p.Name, t.Threshold, t.Status, t.Observed))
			}
		}
		if v := p.Verification; v != nil && !v.Passed() {
			r.Problems = append(r.Problems, fmt.Sprintf("%s: %d of %d acknowledged thoughts could not be read back", p.Name, v.Missing, v.Acknowledged))
		}
		if v := p.Verification; v != nil && v.Applicable && v.Unread > 0 {
			unread = append(unread, fmt.Sprintf("%s (%d of %d)", p.Name, v.Unread, v.Acknowledged))
		}
		if v := p.Verification; v != nil && v.Acknowledged == 0 {
			// Nothing kept, nothing lost: the no-loss gate can not pass on
			// it. Thought calls answered without an acknowledgement are
			// the target's fault; a phase that got no thought call answered
			// at all (a short round on a busy machine) cannot tell.
			if n := thoughtsAnswered(p); n > 0 {
				r.Problems = append(r.Problems, fmt.Sprintf("%s: the target answered %d thought call(s) without acknowledging a thought, so the run cannot show that it loses none", p.Name, n))
			} else {
				idle = append(idle, p.Name)
			}
		}
	}
	for _, s := range r.Stress {
		if s.MaxSustainable == 0 {
			thresholds = append(thresholds, fmt.Sprintf("stress %s: no rung of the ladder met its SLO", s.Label))
		}
	}
	r.Relative = r.judgeRelative(r.Relative)
	r.NothingJudged = r.nothingJudged()
	var unsure []string
	for _, t := range r.Relative {
		switch t.Status {
		case threshold.Passed.String(), threshold.NotApplicable.String():
		case threshold.Inconclusive.String():
			unsure = append(unsure, fmt.Sprintf("%s %s: %s", t.Subject, t.Threshold, t.Observed))
		default:
			thresholds = append(thresholds, fmt.Sprintf("%s against %s: threshold %s %s (observed %s)", t.Subject, t.Reference, t.Threshold, t.Status, t.Observed))
		}
	}
	r.Inconclusive, r.thresholdsFailed = "", false
	machine := r.ceilingHeld()
	switch {
	case len(r.Problems) > 0:
		r.Verdict = VerdictFail
		r.Problems = append(r.Problems, thresholds...)
		r.thresholdsFailed = len(thresholds) > 0
	case machine != "":
		r.Verdict, r.Inconclusive = VerdictInconclusive, machine
		for _, t := range thresholds {
			r.Notes = append(r.Notes, "not judged (the machine could not sustain the tier): "+t)
		}
	case len(thresholds) > 0:
		r.Verdict, r.Problems, r.thresholdsFailed = VerdictFail, thresholds, true
	case len(unsure) > 0 || len(idle) > 0 || len(unread) > 0:
		r.Verdict = VerdictInconclusive
		var why []string
		if len(unread) > 0 {
			why = append(why, "acknowledged thoughts got no answer when read back in "+strings.Join(unread, ", ")+", so the run cannot show that the target loses none (the transcript says why each read failed)")
		}
		if len(unsure) > 0 {
			why = append(why, "the run cannot tell whether "+strings.Join(unsure, "; ")+": the confidence interval straddles the limit (more rounds narrow it)")
		}
		if len(idle) > 0 {
			why = append(why, "no thought call was answered in "+strings.Join(idle, ", ")+", so the run cannot show that the target loses none (longer rounds would)")
		}
		r.Inconclusive = strings.Join(why, "; ")
	default:
		r.Verdict = VerdictPass
	}
}

// thoughtsAnswered counts the phase's thought and revision calls that
// succeeded: each should have been acknowledged.
func thoughtsAnswered(p PhaseResult) uint64 {
	if p.Metrics == nil {
		return 0
	}
	var n uint64
	for _, op := range []workload.Op{workload.OpThought, workload.OpRevision} {
		if o := p.Metrics.Ops[string(op)]; o != nil {
			n += o.Successes
		}
	}
	return n
}

// passed reports whether an outcome passed; a threshold that does not
// apply to this run passes nothing and fails nothing.
func passed(t ThresholdOutcome) bool {
	return t.Status == threshold.Passed.String() || t.Status == threshold.NotApplicable.String()
}

// ThresholdsFailed reports whether the run failed on a threshold (or one
// had no data), absolute or relative, leaving out the misses of a stress
// ladder's rungs; a ladder no rung of which met its SLO counts as failed.
// An inconclusive run has failed none.
func (r *Report) ThresholdsFailed() bool { return r.thresholdsFailed }

// Lost returns the number of acknowledged thoughts not read back.
func (r *Report) Lost() int {
	n := 0
	for _, p := range r.Phases {
		if p.Verification != nil {
			n += p.Verification.Missing
		}
	}
	return n
}

// Unread returns the number of acknowledged thoughts whose read-back got
// no answer (Verification.Unread).
func (r *Report) Unread() int {
	n := 0
	for _, p := range r.Phases {
		if p.Verification != nil && p.Verification.Applicable {
			n += p.Verification.Unread
		}
	}
	return n
}

// Acknowledged returns the number of thoughts the targets acknowledged in
// the phases whose thoughts are verified.
func (r *Report) Acknowledged() int {
	n := 0
	for _, p := range r.Phases {
		if p.Verification != nil {
			n += p.Verification.Acknowledged
		}
	}
	return n
}

// Unverifiable returns the number of acknowledged thoughts whose
// verification did not apply (Verification.Reason says why).
func (r *Report) Unverifiable() int {
	n := 0
	for _, p := range r.Phases {
		if v := p.Verification; v != nil && !v.Applicable {
			n += v.Acknowledged
		}
	}
	return n
}
