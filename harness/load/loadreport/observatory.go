package loadreport

import (
	"fmt"
	"strings"
)

// The figures the Observatory comparison is judged against (issue 7/7):
// the Observatory on costs at most 10 % of thought throughput at 8
// sessions, and a thought reaches 100 WebSocket clients with p99 < 50 ms.
const (
	ObservatoryCostFigurePercent = 10
	FanOutFigureP99Ms            = 50
)

// ObservatoryResult is what the comparison found: load.json's
// "observatory".
type ObservatoryResult struct {
	Off string `json:"off"`
	On  string `json:"on"`
	// Users is the number of virtual users (one MCP session each) of the
	// measured phases; Rate their offered rate in an open model.
	Users int     `json:"users"`
	Rate  float64 `json:"offeredRate,omitempty"`
	// ThroughputRatio is on/off completed calls per second, per round.
	ThroughputRatio Stat `json:"throughputRatio"`
	// CostPercent is 100 × (1 − the median ratio): what the Observatory
	// costs in throughput (negative when "on" measured faster).
	CostPercent       float64 `json:"costPercent"`
	CostFigurePercent float64 `json:"costFigurePercent"`
	// CostMet says whether the cost is within the figure.
	CostMet bool          `json:"costMet"`
	FanOut  *FanOutResult `json:"fanOut,omitempty"`
}

// FanOutResult is the delivery of thought:added to the Observatory's
// WebSocket clients subscribed to the observatory channel, from the moment
// the MCP answer to the thought arrived to each client's receipt.
type FanOutResult struct {
	Clients int `json:"clients"`
	// Thoughts is the number of answered thoughts at least one client
	// received; Deliveries the receipts of them; Missing the receipts that
	// never came (Thoughts × Clients − Deliveries).
	Thoughts   int    `json:"thoughts"`
	Deliveries uint64 `json:"deliveries"`
	Missing    uint64 `json:"missing"`
	// Early counts receipts that came before the MCP answer (latency 0).
	Early uint64  `json:"early"`
	P50Ms float64 `json:"p50Ms"`
	P99Ms float64 `json:"p99Ms"`
	MaxMs float64 `json:"maxMs"`
	// FigureP99Ms is the figure p99 is judged against; Met whether it was
	// reached with every receipt delivered.
	FigureP99Ms float64 `json:"figureP99Ms"`
	Met         bool    `json:"met"`
	// Note says why nothing was measured, when nothing was.
	Note string `json:"note,omitempty"`
}

// CompareObservatory computes the Observatory comparison of a finished
// rounds tier, between the subjects labelled off and on (the same server
// with its Observatory off and on), with what the fan-out phase measured
// (nil when it did not run), and records it as r.Observatory.
func (r *Report) CompareObservatory(off, on string, fanOut *FanOutResult) {
	values := map[string]map[int][2]float64{}
	for _, label := range []string{off, on} {
		values[label] = map[int][2]float64{}
		for _, f := range r.Rounds(label) {
			values[label][f.Round] = [2]float64{f.Throughput, f.ThoughtP99Ms}
		}
	}
	res := &ObservatoryResult{Off: off, On: on, CostFigurePercent: ObservatoryCostFigurePercent, FanOut: fanOut,
		ThroughputRatio: compare("throughput", on, off, values, 0).Ratio}
	for _, p := range r.Phases {
		if p.Label == on && !p.Warmup {
			res.Users, res.Rate = p.Users, p.Rate
			break
		}
	}
	if res.ThroughputRatio.N > 0 {
		res.CostPercent = 100 * (1 - res.ThroughputRatio.Median)
		res.CostMet = res.CostPercent <= ObservatoryCostFigurePercent
	}
	r.Observatory = res
}

// observatoryLines are the summary's lines about the comparison.
func (r *Report) observatoryLines() string {
	o := r.Observatory
	if o == nil {
		return ""
	}
	var b strings.Builder
	at := fmt.Sprintf("%d sessions", o.Users)
	if o.Rate > 0 {
		at += fmt.Sprintf(", %.0f calls/s offered", o.Rate)
	}
	fmt.Fprintf(&b, "observatory: throughput on/off %s: the Observatory costs %.1f %% of throughput at %s (figure: at most %.0f %% at 8 sessions: %s)\n",
		o.ThroughputRatio, o.CostPercent, at, o.CostFigurePercent, metText(o.CostMet))
	if f := o.FanOut; f != nil {
		if f.Note != "" {
			fmt.Fprintf(&b, "observatory fan-out: %s\n", f.Note)
		} else {
			fmt.Fprintf(&b, "observatory fan-out to %d clients: %d thoughts, %d deliveries, %d missing, %d before the answer; answer to receipt p50 %.2f ms, p99 %.2f ms, max %.2f ms (figure: p99 < %.0f ms: %s)\n",
				f.Clients, f.Thoughts, f.Deliveries, f.Missing, f.Early, f.P50Ms, f.P99Ms, f.MaxMs, f.FigureP99Ms, metText(f.Met))
		}
	}
	return b.String()
}

func metText(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}
