package loadreport

import (
	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
	"github.com/thoughtbox-bench/tbbench/harness/load/threshold"
)

// PhaseResult is what one phase measured.
type PhaseResult struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	Round int    `json:"round,omitempty"`
	// Warmup marks the unmeasured phase before the first round, left out
	// of rounds, comparisons and scores.
	Warmup bool `json:"warmup,omitempty"`
	// Probe marks a stress ladder's rung: a threshold it misses (and the
	// abort that follows) answers the ladder's question and fails nothing.
	Probe  bool    `json:"probe,omitempty"`
	Rate   float64 `json:"offeredRate,omitempty"`
	Users  int     `json:"users"`
	Target string  `json:"target"`
	// Started, Dropped and the schedule lag come from the executor.
	Started  uint64  `json:"started"`
	Dropped  uint64  `json:"dropped"`
	LagP99Ms float64 `json:"scheduleLagP99Ms"`
	// Pacer says, for an open phase, whether its scheduler waited for the
	// arrivals at a real-time priority ("real-time") or not ("ordinary"),
	// and PacerNote why not, when it was asked to (pace.RealTime).
	Pacer     string  `json:"pacer,omitempty"`
	PacerNote string  `json:"pacerNote,omitempty"`
	Seconds   float64 `json:"seconds"`
	Aborted   string  `json:"aborted,omitempty"`
	// NotReadyRetries counts the calls made again because the gateway
	// answered "not ready" right after initialize (a quirk of Thoughtbox
	// 1.2.2; bounded to two seconds a call, as conform does).
	NotReadyRetries int64 `json:"notReadyRetries,omitempty"`
	// Metrics holds the histograms, counts, error classes and time series.
	Metrics *metrics.Snapshot `json:"metrics"`
	// Process is the server process's CPU and memory, when it is a child.
	Process *ProcessStats `json:"process,omitempty"`
	// ClientCPUPerCallUs is the harness process's CPU time over the phase
	// per call it completed, in microseconds: what the load's users, the
	// in-process sidecar and the rest of the client paid for one call. It
	// is measured beside a server that is a child process only.
	ClientCPUPerCallUs float64            `json:"clientCpuPerCallUs,omitempty"`
	Verification       *Verification      `json:"verification,omitempty"`
	Thresholds         []ThresholdOutcome `json:"thresholds,omitempty"`
	// Slopes are the trends of latency and memory over the phase.
	Slopes *Slopes `json:"slopes,omitempty"`
}

// PhaseResult.Pacer's values.
const (
	PacerRealTime = "real-time"
	PacerOrdinary = "ordinary"
)

// ProcessStats is the server process's resource use during a phase.
type ProcessStats struct {
	PID        int     `json:"pid"`
	CPUSeconds float64 `json:"cpuSeconds"`
	CPUPercent float64 `json:"cpuPercent"`
	// CPUPerCallUs is CPUSeconds over the calls the phase completed, in
	// microseconds: what one call cost the server, however busy the
	// machine was (CPU time, not wall time).
	CPUPerCallUs float64   `json:"cpuPerCallUs,omitempty"`
	MaxRSSMiB    float64   `json:"maxRssMiB"`
	RSSMiB       []float64 `json:"rssMiB"` // one sample a second
}

// ThresholdOutcome is one threshold's verdict.
type ThresholdOutcome struct {
	// Threshold is the selector and expression together, for people.
	Threshold  string `json:"threshold"`
	Selector   string `json:"selector"`
	Expression string `json:"expression"`
	Status     string `json:"status"`
	Observed   string `json:"observed"`
	// Subject and Reference name what a relative threshold compared: the
	// subject's label and the ceiling's or the baseline's.
	Subject   string `json:"subject,omitempty"`
	Reference string `json:"reference,omitempty"`
}

// Passed reports whether no threshold failed and the verification passed.
func (r PhaseResult) Passed() bool {
	for _, t := range r.Thresholds {
		if t.Status != threshold.Passed.String() {
			return false
		}
	}
	return r.Verification == nil || r.Verification.Passed()
}

// Evaluate checks every threshold against a finished phase; relative ones
// (the ratio metric) compare subjects and are judged with the whole run by
// Finish, and are left out.
func Evaluate(ts []threshold.Threshold, p PhaseResult) []ThresholdOutcome {
	out := make([]ThresholdOutcome, 0, len(ts))
	for _, t := range ts {
		if t.Selector.Kind() == threshold.Ratio {
			continue
		}
		res := threshold.Evaluate(t, Lookup(p.Metrics))
		out = append(out, ThresholdOutcome{Threshold: t.String(), Selector: t.Selector.String(), Expression: t.Expression.Text,
			Status: res.Status.String(), Observed: res.ObservedText()})
	}
	return out
}

// reevaluate judges a recorded threshold again against p's metrics (after a
// merge).
func reevaluate(o ThresholdOutcome, p PhaseResult) ThresholdOutcome {
	t, err := threshold.Parse(o.Selector, o.Expression)
	if err != nil {
		o.Status, o.Observed = "unreadable", err.Error()
		return o
	}
	return Evaluate([]threshold.Threshold{t}, p)[0]
}
