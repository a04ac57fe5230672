package regress

import (
	"fmt"
	"slices"
	"strings"

	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// Markdown renders the result for a terminal or a CI job summary: the
// verdict, the two runs, the regressions, the scores, the load figures
// (with every round's value folded away), the gate rules and the notes.
func (r Result) Markdown() string {
	var b strings.Builder
	r.writeHeader(&b)
	r.writeRuns(&b)
	r.writeRegressions(&b)
	r.writeScores(&b)
	r.writeFigures(&b)
	r.writeOutcomes(&b)
	r.writeNotes(&b)
	return b.String()
}

// Headline returns the one-line verdict. It starts with "nothing judged: "
// and the reason when NothingJudged (and no regression outranks it); when
// some load figures cannot detect a difference, it says how many and why.
func (r Result) Headline() string {
	switch {
	case !r.Comparable:
		return "not comparable: the machines differ, nothing is gated"
	case r.Regressed():
		return fmt.Sprintf("REGRESSION (%d)", len(r.regressionLines())) + r.blindness()
	case r.NothingJudged():
		return "nothing judged: " + r.nothingJudgedReason()
	}
	return "no regression" + r.blindness()
}

// blindness returns "; N of M load figures cannot detect a difference — …"
// for a headline ("; none of the M …" when no figure can), "" when every
// figure can.
func (r Result) blindness() string {
	blind := r.undetectable()
	switch len(blind) {
	case 0:
		return ""
	case len(r.Figures):
		return "; " + r.nothingJudgedReason()
	}
	return fmt.Sprintf("; %d of %d load figures cannot detect a difference — %s", len(blind), len(r.Figures), reasons(blind, true))
}

// nothingJudgedReason says why NothingJudged: no figure can detect a
// difference, or there is nothing to compare.
func (r Result) nothingJudgedReason() string {
	if len(r.Figures) == 0 {
		return "no load figures, and no gated score measured in both runs"
	}
	what := fmt.Sprintf("none of the %d load figures can", len(r.Figures))
	if len(r.Figures) == 1 {
		what = "the load figure cannot"
	}
	return fmt.Sprintf("%s detect a difference — %s", what, reasons(r.Figures, false))
}

// reasons renders why the figures cannot detect a difference, once per
// distinct reason, in the figures' order; with the targets it concerns
// when withTargets or when there are several.
func reasons(figs []Figure, withTargets bool) string {
	var whys []string
	targets := map[string][]string{}
	for _, f := range figs {
		if _, seen := targets[f.Undetectable]; !seen {
			whys = append(whys, f.Undetectable)
		}
		if !slices.Contains(targets[f.Undetectable], f.Target) {
			targets[f.Undetectable] = append(targets[f.Undetectable], f.Target)
		}
	}
	withTargets = withTargets || len(whys) > 1
	parts := make([]string, len(whys))
	for i, why := range whys {
		parts[i] = why
		if withTargets {
			parts[i] = "target " + strings.Join(targets[why], ", ") + ", " + why
		}
	}
	return strings.Join(parts, "; ")
}

func (r Result) writeHeader(b *strings.Builder) {
	fmt.Fprintf(b, "## tbbench compare: %s\n\n", r.Headline())
	if !r.Comparable {
		fmt.Fprintf(b, "**Not comparable**: the baseline ran on %s, this run on %s. Every figure is shown; nothing is gated.\n\n",
			r.Scores.Baseline, r.Scores.Current)
		return
	}
	if r.NothingJudged() && !r.Regressed() {
		fmt.Fprintf(b, "**Nothing judged**: %s. This comparison could not have found a regression: it is not a pass.\n\n", r.nothingJudgedReason())
		return
	}
	if blind := r.undetectable(); len(blind) > 0 {
		names := make([]string, len(blind))
		for i, f := range blind {
			names[i] = f.Target + " " + f.Name
		}
		fmt.Fprintf(b, "**Cannot detect a difference** (too few rounds): %s. Their verdicts say nothing about load.\n\n", strings.Join(names, ", "))
	}
}

func (r Result) writeRuns(b *strings.Builder) {
	bs, cs := r.Baseline.Scorecard, r.Current.Scorecard
	b.WriteString("| | Baseline | This run |\n|---|---|---|\n")
	row := func(what, x, y string) { fmt.Fprintf(b, "| %s | %s | %s |\n", what, cell(x), cell(y)) }
	row("File", "`"+r.Baseline.Path+"`", "`"+r.Current.Path+"`")
	row("Run", bs.RunID, cs.RunID)
	row("Finished", bs.FinishedAt.UTC().Format("2006-01-02 15:04 UTC"), cs.FinishedAt.UTC().Format("2006-01-02 15:04 UTC"))
	row("Target", target(bs.Target), target(cs.Target))
	row("Machine", bs.Machine.Fingerprint(), cs.Machine.Fingerprint())
	row("Verdict", bs.Verdict, cs.Verdict)
	if r.Baseline.Load != nil || r.Current.Load != nil {
		row("Load", loadInfo(r.Baseline), loadInfo(r.Current))
	}
	b.WriteString("\n")
}

// target renders a scorecard target.
func target(t scorecards.Target) string {
	return fmt.Sprintf("%s (%s, %s)", t.Name, t.Transport, t.Storage)
}

// loadInfo renders the tier and workload of a run's load.json.
func loadInfo(run Run) string {
	if run.Load == nil {
		return "–"
	}
	return fmt.Sprintf("tier %s, workload %s", run.Load.Tier, run.Load.WorkloadHash)
}

// regressionLines lists every regression, or what would be one were the
// machines comparable.
func (r Result) regressionLines() []string {
	var out []string
	for _, g := range r.Scores.Regressions {
		name := g.Name
		if g.Kind == scorecards.KindLevel {
			name = "@" + name + " pass rate"
		}
		out = append(out, fmt.Sprintf("%s: %s → %s (%s, limit %s)", name, pct(g.Baseline), pct(g.Current), pp(g.Current-g.Baseline), strings.TrimPrefix(pp(g.Limit), "+")))
	}
	for _, f := range r.Figures {
		if f.Regressed {
			out = append(out, fmt.Sprintf("%s %s: %s → %s %s (%s, p=%.3f; limit %s)", f.Target, f.Name, num(f.Shift.BaselineMedian),
				num(f.Shift.CurrentMedian), f.Unit(), changeCI(f.Shift), f.Shift.P, limitText(f)))
		}
	}
	for _, o := range r.Outcomes {
		if !o.Passed {
			out = append(out, fmt.Sprintf("gate `%s: %s` (line %d): %s", o.Rule.Key, o.Rule.Cond, o.Rule.Line, o.Detail))
		}
	}
	return out
}

func (r Result) writeRegressions(b *strings.Builder) {
	lines := r.regressionLines()
	if len(lines) == 0 || !r.Comparable {
		return
	}
	b.WriteString("### Regressions\n\n")
	for _, l := range lines {
		b.WriteString("- " + l + "\n")
	}
	b.WriteString("\n")
}

func (r Result) writeScores(b *strings.Builder) {
	bs, cs := r.Baseline.Scorecard, r.Current.Scorecard
	b.WriteString("### Scores\n\n| Figure | Baseline | This run | Change | Limit | Verdict |\n|---|---:|---:|---:|---|---|\n")
	fmt.Fprintf(b, "| overall | %s | %s | %s | – | – |\n", optScore(bs.Overall), optScore(cs.Overall), change(bs.Overall, cs.Overall))
	for _, d := range r.Scores.Deltas {
		name := d.Name
		if d.Kind == scorecards.KindLevel {
			name = "@" + name + " pass rate"
		}
		limit, verdict := "–", "informational"
		if d.Gated {
			limit, verdict = "drop ≤ "+strings.TrimPrefix(pp(d.Limit), "+"), r.scoreVerdict(d)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", cell(name), optScore(d.Baseline), optScore(d.Current), change(d.Baseline, d.Current), limit, verdict)
	}
	b.WriteString("\n")
}

// scoreVerdict judges a gated score delta.
func (r Result) scoreVerdict(d scorecards.Delta) string {
	if d.Baseline == nil || d.Current == nil {
		return "not in both runs"
	}
	for _, g := range r.Scores.Regressions {
		if g.Kind == d.Kind && g.Name == d.Name {
			return "**regression**"
		}
	}
	if !r.Comparable && *d.Baseline-*d.Current > d.Limit {
		return VerdictNotComparable
	}
	return "ok"
}

// change renders the change between two scores.
func change(b, c *float64) string {
	if b == nil || c == nil {
		return "–"
	}
	return pp(*c - *b)
}

func (r Result) writeFigures(b *strings.Builder) {
	if len(r.Figures) == 0 {
		return
	}
	fmt.Fprintf(b, "### Load figures over the rounds\n\nMann–Whitney U test on the rounds (α = %g); the change is the Hodges–Lehmann estimate of this run over the baseline with its %.0f%% confidence interval. A significant change for the worse beyond the limit is a regression; no significant difference never is. With too few rounds the test cannot reach p < α at all: such a figure cannot detect a difference. The ceiling is gated only when a gate names it.\n\n",
		r.Gates.Alpha, Confidence*100)
	b.WriteString("| Target | Figure | Baseline median | This run median | Change [CI] | p | Limit | Verdict |\n|---|---|---:|---:|---:|---:|---|---|\n")
	for _, f := range r.Figures {
		verdict := f.Verdict
		if f.Regressed {
			verdict = "**regression**"
		}
		fmt.Fprintf(b, "| %s | %s (%s) | %s (n=%d) | %s (n=%d) | %s | %.3f | %s | %s |\n", cell(f.Target), f.Name, f.Unit(),
			num(f.Shift.BaselineMedian), f.Shift.N1, num(f.Shift.CurrentMedian), f.Shift.N2, changeCI(f.Shift), f.Shift.P, limitText(f), verdict)
	}
	b.WriteString("\n<details><summary>Values per round</summary>\n\n| Target | Figure | Baseline rounds | This run's rounds |\n|---|---|---|---|\n")
	for _, f := range r.Figures {
		fmt.Fprintf(b, "| %s | %s (%s) | %s | %s |\n", cell(f.Target), f.Name, f.Unit(), nums(f.Baseline), nums(f.Current))
	}
	b.WriteString("\n</details>\n\n")
}

// changeCI renders the estimated change with its interval.
func changeCI(s Shift) string {
	if !s.HasCI {
		return signedPct(s.Ratio-1) + " [CI needs more rounds]"
	}
	return fmt.Sprintf("%s [%s, %s]", signedPct(s.Ratio-1), signedPct(s.Low-1), signedPct(s.High-1))
}

// limitText renders a figure's limit.
func limitText(f Figure) string {
	if !f.Gated {
		return "not gated"
	}
	op := "rise"
	if f.HigherIsBetter() {
		op = "drop"
	}
	rel := "≤"
	if f.Strict {
		rel = "<"
	}
	return fmt.Sprintf("%s %s %s", op, rel, strings.TrimPrefix(signedPct(f.Limit), "+"))
}

func (r Result) writeOutcomes(b *strings.Builder) {
	if len(r.Outcomes) == 0 {
		return
	}
	fmt.Fprintf(b, "### Gates (`%s`)\n\n| Rule | Line | Result | Detail |\n|---|---:|---|---|\n", r.Gates.Path)
	for _, o := range r.Outcomes {
		result := "pass"
		switch {
		case !r.Comparable:
			result = "not gated"
		case !o.Passed:
			result = "**fail**"
		}
		fmt.Fprintf(b, "| `%s: %s` | %d | %s | %s |\n", cell(o.Rule.Key), cell(o.Rule.Cond), o.Rule.Line, result, cell(o.Detail))
	}
	b.WriteString("\n")
}

func (r Result) writeNotes(b *strings.Builder) {
	notes := append([]string(nil), r.Notes...)
	seen := map[string]bool{}
	for _, f := range r.Figures {
		for _, w := range f.Shift.Warnings {
			if !seen[w] {
				seen[w] = true
				notes = append(notes, fmt.Sprintf("with %d and %d rounds the U test cannot find any difference (benchmath: %s); run more rounds", f.Shift.N1, f.Shift.N2, w))
			}
		}
	}
	if len(notes) == 0 {
		return
	}
	b.WriteString("### Notes\n\n")
	for _, n := range notes {
		b.WriteString("- " + n + "\n")
	}
	b.WriteString("\n")
}
