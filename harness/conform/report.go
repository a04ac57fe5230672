package conform

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// WriteJSON writes the report as conformance.json in dir.
func (r Report) WriteJSON(dir string) (string, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "conformance.json")
	return path, os.WriteFile(path, append(b, '\n'), 0o644)
}

// Markdown renders the report for people: totals per level and suite, then
// every failure with its transcript.
func (r Report) Markdown() string {
	var b strings.Builder
	passed, failed, na := r.Tally()
	fmt.Fprintf(&b, "# Conformance run %s\n\n", r.RunID)
	fmt.Fprintf(&b, "Target: %s (%s", r.Target.Address, r.Target.Kind)
	if r.Target.Transport != "" {
		fmt.Fprintf(&b, ", %s", r.Target.Transport)
	}
	if r.Target.Storage != "" {
		fmt.Fprintf(&b, ", %s storage", r.Target.Storage)
	}
	b.WriteString(")")
	if r.Target.ServerName != "" {
		fmt.Fprintf(&b, ", server %s %s", r.Target.ServerName, r.Target.ServerVersion)
	}
	fmt.Fprintf(&b, "\n\nStarted %s, %.1f s. %d passed, %d failed, %d not applicable. Required levels: %s. Verdict: **%s**.\n\n",
		r.StartedAt.Format("2006-01-02 15:04:05Z"), r.FinishedAt.Sub(r.StartedAt).Seconds(), passed, failed, na,
		strings.Join(r.Required, ", "), verdict(r))
	b.WriteString("| Level | Passed | Failed | Status |\n|---|---|---|---|\n")
	for _, l := range r.Levels {
		status := "informational"
		if l.Required {
			status = "required"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s |\n", l.Level, l.Passed, l.Failed, status)
	}
	b.WriteString("\n| Suite | Passed | Failed | Not applicable |\n|---|---|---|---|\n")
	type tally struct{ p, f, n int }
	suites := map[string]*tally{}
	for _, s := range r.Scenarios {
		t := suites[s.Suite]
		if t == nil {
			t = &tally{}
			suites[s.Suite] = t
		}
		switch s.Status {
		case Passed:
			t.p++
		case Failed:
			t.f++
		default:
			t.n++
		}
	}
	names := make([]string, 0, len(suites))
	for n := range suites {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := suites[n]
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", n, t.p, t.f, t.n)
	}
	if failed > 0 {
		b.WriteString("\n## Failures\n")
		for _, s := range r.Scenarios {
			if s.Status != Failed {
				continue
			}
			fmt.Fprintf(&b, "\n### %s — %s (@%s @%s)\n\n```\n%s\n```\n\nTranscript: `%s`\n", s.Feature, s.Name, s.Level, s.Suite,
				strings.TrimSpace(s.Failure), s.Transcript)
		}
	}
	var quirks, warnings []string
	for _, s := range r.Scenarios {
		for _, q := range s.Quirks {
			quirks = append(quirks, s.Name+": "+q)
		}
		for _, w := range s.Warnings {
			warnings = append(warnings, s.Name+": "+w)
		}
	}
	if r.Observability != nil {
		fmt.Fprintf(&b, "\n## Sidecar counts\n\nThe traffic went through the mcp-sidecar proxy; its counts against the harness's: %s.\n", summarise(r.Observability))
	}
	if len(quirks) > 0 {
		b.WriteString("\n## Quirks tolerated\n\n")
		for _, q := range quirks {
			fmt.Fprintf(&b, "- %s\n", q)
		}
	}
	if len(warnings) > 0 {
		b.WriteString("\n## Warnings\n\n")
		for _, w := range warnings {
			fmt.Fprintf(&b, "- %s\n", w)
		}
	}
	if na > 0 {
		b.WriteString("\n## Not applicable\n\n")
		for _, s := range r.Scenarios {
			if s.Status == NotApplicable {
				fmt.Fprintf(&b, "- %s — %s: %s\n", s.Feature, s.Name, s.Failure)
			}
		}
	}
	return b.String()
}

func verdict(r Report) string {
	if r.RequiredPassed() {
		return "pass"
	}
	return "fail"
}

// WriteMarkdown writes conformance.md in dir.
func (r Report) WriteMarkdown(dir string) (string, error) {
	path := filepath.Join(dir, "conformance.md")
	return path, os.WriteFile(path, []byte(r.Markdown()), 0o644)
}

// Scorecard makes the run's scorecard: its first axis is correctness per
// level.
func (r Report) Scorecard(h scorecards.Harness) scorecards.Scorecard {
	s := scorecards.Scorecard{
		SchemaVersion: scorecards.SchemaVersion,
		RunID:         r.RunID,
		StartedAt:     r.StartedAt,
		FinishedAt:    r.FinishedAt,
		Target: scorecards.Target{Name: r.Target.ServerName, Kind: r.Target.Kind, Address: r.Target.Address,
			Transport: r.Target.Transport, Storage: r.Target.Storage, ServerName: r.Target.ServerName, ServerVersion: r.Target.ServerVersion},
		Harness: h,
		Machine: scorecards.CurrentMachine(),
		Axes:    []scorecards.Axis{scorecards.Correctness(r.Levels)},
	}
	if r.Observability != nil {
		ax := scorecards.ChecksAxis(scorecards.AxisObservability, scorecards.DefaultWeight(scorecards.AxisObservability), r.Observability)
		ax.Summary = "sidecar counts vs the harness's: " + summarise(r.Observability)
		s.Axes = append(s.Axes, ax)
	}
	return s
}
