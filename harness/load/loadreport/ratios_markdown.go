package loadreport

import (
	"fmt"
	"strings"
)

// verdictLines writes why an inconclusive run could not judge, and what it
// left unjudged.
func (r *Report) verdictLines(b *strings.Builder) {
	if r.Inconclusive == "" {
		return
	}
	fmt.Fprintf(b, "\n## Inconclusive\n\n%s.\n", r.Inconclusive)
	for _, n := range r.Notes {
		fmt.Fprintf(b, "- %s\n", n)
	}
}

// ratioTables writes the paired ratios, the relative thresholds and the
// ceiling's conditions.
func (r *Report) ratioTables(b *strings.Builder) {
	if len(r.Ratios) > 0 {
		b.WriteString("\n## Ratios to the ceiling and the baseline (paired rounds: geometric mean [95 % CI])\n\n")
		b.WriteString("| Subject | against | figure | ratio | rounds |\n|---|---|---|---|---|\n")
		for _, x := range r.Ratios {
			fmt.Fprintf(b, "| %s | %s (%s) | %s | %s | %d |\n", x.Subject, x.Reference, x.Versus, x.Name(), intervalCell(x), len(x.Rounds))
		}
	}
	if len(r.Relative) > 0 {
		b.WriteString("\n## Relative thresholds (fail only when the whole interval is past the limit)\n\n")
		b.WriteString("| Subject | against | threshold | observed | result |\n|---|---|---|---|---|\n")
		for _, t := range r.Relative {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", dash(t.Subject), dash(t.Reference), t.Threshold, t.Observed, t.Status)
		}
	}
	if len(r.CeilingConditions) > 0 {
		b.WriteString("\n## What the no-op ceiling had to hold for the run to judge (all its rounds)\n\n")
		b.WriteString("| condition | observed | result |\n|---|---|---|\n")
		for _, t := range r.CeilingConditions {
			fmt.Fprintf(b, "| %s | %s | %s |\n", t.Threshold, t.Observed, t.Status)
		}
	}
}

func intervalCell(x Ratio) string {
	if !x.Bounded {
		return fmt.Sprintf("%.3f (one round: no interval)", x.Estimate)
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", x.Estimate, x.Low, x.High)
}

// ratioSummary is the console's lines of the ratios and the verdict.
func (r *Report) ratioSummary(b *strings.Builder) {
	for _, x := range r.Ratios {
		if x.Figure == "cpu_per_call" || (x.Op == "thought" && (x.Figure == "p(99)" || x.Figure == "p(50)")) {
			fmt.Fprintf(b, "%s / %s %s: %s\n", x.Subject, x.Reference, x.Name(), intervalCell(x))
		}
	}
	for _, t := range r.Relative {
		if t.Status != "passed" && t.Status != "not applicable" {
			fmt.Fprintf(b, "%s: %s %s against %s (observed %s)\n", strings.ToUpper(t.Status), t.Threshold, t.Subject, t.Reference, t.Observed)
		}
	}
	if r.Inconclusive != "" {
		fmt.Fprintf(b, "INCONCLUSIVE %s\n", r.Inconclusive)
	}
}
