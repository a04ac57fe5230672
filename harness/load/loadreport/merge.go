package loadreport

import (
	"fmt"
	"sort"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
)

// Merge combines the reports of the segments of one run into one: phases
// with the same name are added (histograms merged, counts and verifications
// summed), then the summaries, comparisons and verdict are computed again.
// The reports must share tier, seed and workload, and no segment may appear
// twice.
func Merge(reps []*Report) (*Report, error) {
	if len(reps) == 0 {
		return nil, fmt.Errorf("nothing to merge")
	}
	first := reps[0]
	out := *first
	out.Phases, out.Segments = nil, nil
	out.Stress, out.LongSessions, out.Listings = nil, nil, nil
	seen := map[string]bool{}
	byName := map[string]int{}
	for i, r := range reps {
		if r.Tier != first.Tier || r.Seed != first.Seed || r.WorkloadHash != first.WorkloadHash {
			return nil, fmt.Errorf("report %d is from another run: tier %s seed %d workload %s, not tier %s seed %d workload %s",
				i+1, r.Tier, r.Seed, r.WorkloadHash, first.Tier, first.Seed, first.WorkloadHash)
		}
		for _, s := range r.Segments {
			if seen[s] {
				return nil, fmt.Errorf("segment %s appears twice", s)
			}
			seen[s] = true
			out.Segments = append(out.Segments, s)
		}
		if r.StartedAt.Before(out.StartedAt) {
			out.StartedAt = r.StartedAt
		}
		if r.FinishedAt.After(out.FinishedAt) {
			out.FinishedAt = r.FinishedAt
		}
		for _, p := range r.Phases {
			j, ok := byName[p.Name]
			if !ok {
				byName[p.Name] = len(out.Phases)
				p.Verification = copyVerification(p.Verification)
				out.Phases = append(out.Phases, p)
				continue
			}
			out.Phases[j] = mergePhase(out.Phases[j], p)
		}
		out.LongSessions = append(out.LongSessions, r.LongSessions...)
		out.Listings = append(out.Listings, r.Listings...)
	}
	if len(reps) > 1 && len(first.Stress) > 0 {
		out.Stress = mergeStress(reps)
	} else {
		out.Stress = first.Stress
	}
	sort.Strings(out.Segments)
	out.summarise()
	out.judge()
	return &out, nil
}

func copyVerification(v *Verification) *Verification {
	if v == nil {
		return nil
	}
	c := *v
	c.Failures = append([]string(nil), v.Failures...)
	return &c
}

func mergePhase(a, b PhaseResult) PhaseResult {
	a.Users += b.Users
	a.Started += b.Started
	a.Dropped += b.Dropped
	a.LagP99Ms = max(a.LagP99Ms, b.LagP99Ms)
	if b.Pacer == PacerOrdinary { // the merged phase is real-time only if every segment's was
		a.Pacer = b.Pacer
	}
	if a.PacerNote == "" {
		a.PacerNote = b.PacerNote
	}
	a.Seconds = max(a.Seconds, b.Seconds)
	a.Metrics = metrics.Merge(a.Metrics, b.Metrics)
	if a.Aborted == "" {
		a.Aborted = b.Aborted
	}
	if b.Verification != nil {
		if a.Verification == nil {
			a.Verification = copyVerification(b.Verification)
		} else {
			v := a.Verification
			v.Applicable = v.Applicable || b.Verification.Applicable
			if v.Applicable {
				v.Reason = ""
			} else if v.Reason == "" {
				v.Reason = b.Verification.Reason
			}
			v.Sessions += b.Verification.Sessions
			v.Acknowledged += b.Verification.Acknowledged
			v.Missing += b.Verification.Missing
			v.Unread += b.Verification.Unread
			v.Seconds = max(v.Seconds, b.Verification.Seconds)
			for _, f := range b.Verification.Failures {
				if len(v.Failures) < MaxFailures {
					v.Failures = append(v.Failures, f)
				}
			}
		}
	}
	// Thresholds are judged again on the merged metrics; a segment's
	// verdict is not the whole's.
	for i, t := range a.Thresholds {
		a.Thresholds[i] = reevaluate(t, a)
	}
	return a
}

// mergeStress keeps each label's rungs with the segments' rates added.
func mergeStress(reps []*Report) []StressResult {
	var out []StressResult
	for i, s := range reps[0].Stress {
		m := StressResult{Label: s.Label}
		for k, g := range s.Rungs {
			rung := g
			rung.Achieved = 0
			rung.Passed = true
			for _, r := range reps {
				if i < len(r.Stress) && k < len(r.Stress[i].Rungs) {
					o := r.Stress[i].Rungs[k]
					rung.Achieved += o.Achieved
					rung.P99Ms = max(rung.P99Ms, o.P99Ms)
					rung.Passed = rung.Passed && o.Passed
				}
			}
			m.Rungs = append(m.Rungs, rung)
			if rung.Passed {
				m.MaxSustainable = rung.Rate
			}
		}
		out = append(out, m)
	}
	return out
}

// Summary renders the few lines a person reads at the end of a run.
func (r *Report) Summary() string {
	var b strings.Builder
	if r.NothingJudged != "" {
		b.WriteString(r.NothingJudged + "\n")
	}
	for _, s := range r.Summaries {
		fmt.Fprintf(&b, "%-8s %8.0f calls/s  p99 %7.3f ms  thought p99 %7.3f ms  errors %d  dropped %d  acknowledged %d  lost %d\n",
			s.Label, s.Throughput.Median, s.P99Ms.Median, s.ThoughtP99Ms.Median, s.Errors, s.Dropped, s.Acknowledged, s.Lost)
		if s.Unread > 0 {
			fmt.Fprintf(&b, "%-8s %d acknowledged thoughts got no answer when read back: neither kept nor lost\n", s.Label, s.Unread)
		}
	}
	for _, c := range r.Comparisons {
		fmt.Fprintf(&b, "%s %s / %s: %s\n", c.Metric, c.A, c.B, c.Ratio)
	}
	for _, s := range r.Stress {
		fmt.Fprintf(&b, "stress %s: maximum sustainable rate %.0f calls/s", s.Label, s.MaxSustainable)
		if s.Half != nil {
			fmt.Fprintf(&b, "; at half of it (%.0f/s) p99 %.3f ms, thought p99 %.3f ms", s.Half.Rate, s.Half.P99Ms, s.HalfThoughtP99Ms)
		}
		b.WriteString("\n")
	}
	for _, l := range r.LongSessions {
		fmt.Fprintf(&b, "long session %s: %d thoughts, last %d / first %d median cost %.2f (%.3f / %.3f ms); 10th %.3f ms, last %.3f ms; the closing thought, which exports the session, %.1f ms; read_thoughts {last: 5} at %d thoughts p50 / p99 %s ms\n",
			l.Label, l.Thoughts, l.Window, l.Window, l.Ratio, l.LastMs, l.FirstMs, l.TenthMs, l.LastThoughtMs, l.CloseMs, l.Thoughts, l.readLastCell())
	}
	for _, l := range r.Listings {
		if x := l.Restart; x != nil {
			if x.Note != "" {
				fmt.Fprintf(&b, "restart %s, %d sessions: %s\n", l.Label, l.Sessions, x.Note)
			} else {
				fmt.Fprintf(&b, "restart %s, %d sessions: start-up until list_sessions answers %.0f ms; RSS before %s MB, after start %s MB; sessions kept: %s\n",
					l.Label, l.Sessions, x.StartupMs, mb(x.RSSBeforeBytes), mb(x.RSSAfterBytes), yesNo(x.Kept))
			}
		}
		fmt.Fprintf(&b, "listing %s, %d sessions:", l.title(), l.Sessions)
		for _, op := range listingOps {
			if s, ok := l.Ops[string(op)]; ok && s.Calls > 0 {
				fmt.Fprintf(&b, " %s p50 %.2f p99 %.2f ms;", op, ms(s.Latency.P50), ms(s.Latency.P99))
			}
		}
		b.WriteString("\n")
	}
	r.ratioSummary(&b)
	b.WriteString(r.observabilityLine())
	b.WriteString(r.observatoryLines())
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "PROBLEM %s\n", p)
	}
	fmt.Fprintf(&b, "verdict %s\n", r.Verdict)
	return b.String()
}
