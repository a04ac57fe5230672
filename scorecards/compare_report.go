package scorecards

import (
	"fmt"
	"strings"
)

// GateBaseline is the name of the gate [Comparison.Gate] returns.
const GateBaseline = "no regression against baseline"

// Gate returns the comparison as a gate to add to the scorecard before
// [Scorecard.Finish] (§5.7: a regression beyond threshold fails the run).
// An incomparable comparison passes: it is never gated.
func (c Comparison) Gate() Gate {
	g := Gate{Name: GateBaseline, Passed: len(c.Regressions) == 0}
	switch {
	case !c.Comparable:
		g.Detail = "incomparable machine fingerprint, not gated"
	case g.Passed:
		g.Detail = "no figure dropped by more than " + percentPoints(RegressionThreshold)
	default:
		var parts []string
		for _, r := range c.Regressions {
			parts = append(parts, fmt.Sprintf("%s %s −%s", r.Kind, r.Name, percentPoints(r.Drop())))
		}
		g.Detail = strings.Join(parts, "; ")
	}
	return g
}

// Markdown renders the comparison: whether it is comparable, the
// regressions, a table of every figure with its change, and the notes.
func (c Comparison) Markdown() string {
	var b strings.Builder
	b.WriteString("## Comparison with the baseline\n\n")
	if c.Comparable {
		fmt.Fprintf(&b, "Comparable: same machine fingerprint (%s).\n\n", c.Current)
	} else {
		fmt.Fprintf(&b, "**Incomparable**: the baseline ran on %s, this run on %s. Nothing is gated.\n\n", c.Baseline, c.Current)
	}
	switch {
	case len(c.Regressions) > 0:
		fmt.Fprintf(&b, "**%d regression(s)** (drop of more than %s):\n\n", len(c.Regressions), percentPoints(RegressionThreshold))
		for _, r := range c.Regressions {
			fmt.Fprintf(&b, "- %s %s: %s → %s (−%s)\n", r.Kind, r.Name, percent(r.Baseline), percent(r.Current), percentPoints(r.Drop()))
		}
		b.WriteString("\n")
	case c.Comparable:
		fmt.Fprintf(&b, "No regression (no drop of more than %s).\n\n", percentPoints(RegressionThreshold))
	}
	if len(c.Deltas) > 0 {
		b.WriteString("| Figure | Baseline | This run | Change |\n|---|---:|---:|---:|\n")
		for _, d := range c.Deltas {
			name := d.Name
			if d.Kind == KindLevel {
				name = "@" + name + " pass rate"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(name), score(d.Baseline), score(d.Current), change(d))
		}
		b.WriteString("\n")
	}
	if len(c.Notes) > 0 {
		b.WriteString("Notes:\n\n")
		for _, n := range c.Notes {
			b.WriteString("- " + n + "\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// change renders the change of a delta in percentage points.
func change(d Delta) string {
	if d.Baseline == nil || d.Current == nil {
		return "–"
	}
	pp := (*d.Current - *d.Baseline) * 100
	if pp > -0.05 && pp < 0.05 {
		return "±0.0 pp"
	}
	return fmt.Sprintf("%+.1f pp", pp)
}

// percentPoints renders a fraction as percentage points.
func percentPoints(f float64) string {
	return fmt.Sprintf("%.1f pp", f*100)
}
