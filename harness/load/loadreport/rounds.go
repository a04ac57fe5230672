package loadreport

import "github.com/thoughtbox-bench/tbbench/harness/load/workload"

// RoundFigures are one round's figures of one target, as the summaries
// aggregate them.
type RoundFigures struct {
	Round int
	// Throughput is completed calls per second.
	Throughput float64
	// P99Ms is the p99 latency of every call, ThoughtP99Ms the thought's.
	P99Ms, ThoughtP99Ms float64
}

// Rounds returns the figures of the target with the given label round by
// round, in round order; empty for a tier without rounds (stress, long
// session, listing) or an unknown label.
func (r *Report) Rounds(label string) []RoundFigures {
	phases := r.roundPhases(label)
	out := make([]RoundFigures, 0, len(phases))
	for _, round := range sortedRounds(phases) {
		m := phases[round].Metrics
		if m == nil {
			continue
		}
		total := m.Total()
		out = append(out, RoundFigures{Round: round, Throughput: total.Throughput, P99Ms: P99Ms(total),
			ThoughtP99Ms: OpP99Ms(m, string(workload.OpThought))})
	}
	return out
}
