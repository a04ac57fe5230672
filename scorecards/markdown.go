package scorecards

import (
	"fmt"
	"strings"
	"time"
)

// Markdown renders the scorecard as a human summary: verdict and overall
// score (saying over which axes it was normalised), the axes table, the
// correctness levels table, the failed checks, the gates, the target and
// the machine.
func (s Scorecard) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# tbbench scorecard: %s\n\n", orDash(s.Target.Name))
	fmt.Fprintf(&b, "**Verdict: %s** · overall score %s\n\n", strings.ToUpper(orDash(s.Verdict)), score(s.Overall))
	b.WriteString(overallNote(s.Axes))
	writeRun(&b, s)
	writeAxes(&b, s.Axes)
	writeLevels(&b, s.Axes)
	writeFailedChecks(&b, s.Axes)
	writeGates(&b, s.Gates)
	writeTarget(&b, s.Target)
	writeMachine(&b, s.Machine, s.Harness)
	return b.String()
}

// overallNote explains how the overall score was normalised.
func overallNote(axes []Axis) string {
	measured, weight, missing := measuredWeight(axes)
	if len(measured) == 0 {
		return "No axis was measured, so there is no overall score.\n\n"
	}
	var total float64
	for _, a := range axes {
		total += a.Weight
	}
	note := fmt.Sprintf("The overall score is the weighted mean of the measured axes only (%s): their weights, %.2f of %.2f, are renormalised to 1.",
		strings.Join(measured, ", "), weight, total)
	if len(missing) > 0 {
		note += " Not measured, so not counted: " + strings.Join(missing, ", ") + "."
	}
	return note + "\n\n"
}

// writeRun writes the run id and times.
func writeRun(b *strings.Builder, s Scorecard) {
	fmt.Fprintf(b, "Run `%s`, started %s, finished %s", orDash(s.RunID), stamp(s.StartedAt), stamp(s.FinishedAt))
	if !s.StartedAt.IsZero() && s.FinishedAt.After(s.StartedAt) {
		fmt.Fprintf(b, " (%s)", s.FinishedAt.Sub(s.StartedAt).Round(time.Millisecond))
	}
	b.WriteString(".\n\n")
}

// stamp renders a time in UTC, or "–" when it is zero.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format(time.RFC3339)
}

// writeAxes writes the per-axis table.
func writeAxes(b *strings.Builder, axes []Axis) {
	b.WriteString("## Axes\n\n| Axis | Score | Weight | Summary |\n|---|---:|---:|---|\n")
	for _, a := range axes {
		fmt.Fprintf(b, "| %s | %s | %.2f | %s |\n", cell(a.Name), score(a.Score), a.Weight, cell(a.Summary))
	}
	b.WriteString("\n")
}

// writeLevels writes the correctness levels table, if there are levels.
func writeLevels(b *strings.Builder, axes []Axis) {
	a, ok := Scorecard{Axes: axes}.Axis(AxisCorrectness)
	if !ok || len(a.Levels) == 0 {
		return
	}
	b.WriteString("## Correctness by level\n\n| Level | Passed | Failed | Skipped | Pass rate | Status |\n|---|---:|---:|---:|---:|---|\n")
	for _, l := range a.Levels {
		rate := "–"
		if r, ok := l.PassRate(); ok {
			rate = percent(r)
		}
		status := "informational"
		if l.gated() {
			status = "required"
		}
		fmt.Fprintf(b, "| @%s | %d | %d | %d | %s | %s |\n", cell(string(l.Level)), l.Passed, l.Failed, l.Skipped, rate, status)
	}
	b.WriteString("\n")
}

// writeFailedChecks lists the failed checks of every axis, then those the
// run could not tell, then those that were not applicable.
func writeFailedChecks(b *strings.Builder, axes []Axis) {
	var failed, unsure, na []string
	for _, a := range axes {
		for _, c := range a.Checks {
			if c.Passed {
				continue
			}
			line := fmt.Sprintf("- %s: %s", a.Name, c.Name)
			if c.Detail != "" {
				line += " — " + strings.ReplaceAll(c.Detail, "\n", " ")
			}
			switch {
			case c.NotApplicable:
				na = append(na, line)
			case c.Inconclusive:
				unsure = append(unsure, line)
			default:
				failed = append(failed, line)
			}
		}
	}
	if len(failed) > 0 {
		b.WriteString("## Failed checks\n\n" + strings.Join(failed, "\n") + "\n\n")
	}
	if len(unsure) > 0 {
		b.WriteString("## Checks inconclusive\n\n" + strings.Join(unsure, "\n") + "\n\n")
	}
	if len(na) > 0 {
		b.WriteString("## Checks not applicable\n\n" + strings.Join(na, "\n") + "\n\n")
	}
}

// writeGates writes the gates table.
func writeGates(b *strings.Builder, gates []Gate) {
	b.WriteString("## Gates\n\n")
	if len(gates) == 0 {
		b.WriteString("No gate was evaluated.\n\n")
		return
	}
	b.WriteString("| Gate | Result | Detail |\n|---|---|---|\n")
	for _, g := range gates {
		fmt.Fprintf(b, "| %s | %s | %s |\n", cell(g.Name), g.Result(), cell(g.Detail))
	}
	b.WriteString("\n")
}

// writeTarget writes the target description.
func writeTarget(b *strings.Builder, t Target) {
	b.WriteString("## Target\n\n")
	fmt.Fprintf(b, "- Name: %s (%s)\n", orDash(t.Name), orDash(t.Kind))
	if t.Address != "" {
		fmt.Fprintf(b, "- Address: `%s`\n", t.Address)
	}
	fmt.Fprintf(b, "- Transport: %s, storage: %s\n", orDash(t.Transport), orDash(t.Storage))
	fmt.Fprintf(b, "- Server: %s\n\n", strings.TrimSpace(orDash(t.ServerName)+" "+t.ServerVersion))
}

// writeMachine writes the machine and harness description.
func writeMachine(b *strings.Builder, m Machine, h Harness) {
	b.WriteString("## Machine\n\n")
	fmt.Fprintf(b, "- %s/%s, kernel %s\n", orDash(m.OS), orDash(m.Arch), orDash(m.Kernel))
	fmt.Fprintf(b, "- CPU: %s, %d cores, GOMAXPROCS %d\n", orDash(m.CPUModel), m.Cores, m.GOMAXPROCS)
	if m.MemoryBytes > 0 {
		fmt.Fprintf(b, "- Memory: %.1f GiB\n", float64(m.MemoryBytes)/(1<<30))
	} else {
		b.WriteString("- Memory: unknown\n")
	}
	fmt.Fprintf(b, "- Harness %s, %s\n", orDash(h.Version), orDash(h.GoVersion))
}
