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
	t := r.Totals()
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
	if r.Target.Profile != "" {
		how := "given with --profile"
		if r.Target.ProfileDetected {
			how = "detected from tools/list"
		}
		fmt.Fprintf(&b, ". Profile: **%s** (%s)", r.Target.Profile, how)
	}
	fmt.Fprintf(&b, "\n\nStarted %s, %.1f s. %s, %d not applicable. Required levels: %s. Verdict: **%s**.\n\n",
		r.StartedAt.Format("2006-01-02 15:04:05Z"), r.FinishedAt.Sub(r.StartedAt).Seconds(), t, t.NotApplicable,
		strings.Join(r.Required, ", "), verdict(r))
	b.WriteString("| Level | Passed | Failed | Status |\n|---|---|---|---|\n")
	for _, l := range r.Levels {
		switch {
		case l.Level == scorecards.Quirk:
			fmt.Fprintf(&b, "| %s | – | – | informational: %d quirks present, %d absent |\n", l.Level, l.Passed, l.Failed)
		case l.Required:
			fmt.Fprintf(&b, "| %s | %d | %d | required |\n", l.Level, l.Passed, l.Failed)
		default:
			fmt.Fprintf(&b, "| %s | %d | %d | not required |\n", l.Level, l.Passed, l.Failed)
		}
	}
	b.WriteString("\n| Suite | Passed | Failed | Informational (quirk) | Not applicable |\n|---|---|---|---|---|\n")
	suites := map[string]*Totals{}
	for _, s := range r.Scenarios {
		if suites[s.Suite] == nil {
			suites[s.Suite] = &Totals{}
		}
		st := Report{Scenarios: []ScenarioResult{s}}.Totals()
		t := suites[s.Suite]
		t.Passed += st.Passed
		t.Failed += st.Failed
		t.Informational += st.Informational
		t.NotApplicable += st.NotApplicable
	}
	names := make([]string, 0, len(suites))
	for n := range suites {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := suites[n]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", n, t.Passed, t.Failed, t.Informational, t.NotApplicable)
	}
	if t.Failed > 0 {
		b.WriteString("\n## Failures\n")
		for _, s := range r.Scenarios {
			if s.Status != Failed || s.Informational() {
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
		fmt.Fprintf(&b, "\n## Sidecar counts\n\nThe traffic went through the mcp-sidecar proxy; its counts per method, tool, operation and status against the harness's (a gate: any difference fails the run): %s.\n",
			summarise(r.Observability))
	}
	if t.Informational > 0 {
		b.WriteString("\n## Informational (@quirk)\n\nBehaviour of the original 1.2.2 nobody should rely on; never a failure.\n\n")
		for _, s := range r.Scenarios {
			switch {
			case !s.Informational():
			case s.Status == Passed:
				fmt.Fprintf(&b, "- %s — %s: quirk present\n", s.Feature, s.Name)
			default:
				fmt.Fprintf(&b, "- %s — %s: quirk absent (%s)\n", s.Feature, s.Name, oneLine(s.Failure, 160))
			}
		}
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
	if t.NotApplicable > 0 {
		b.WriteString("\n## Not applicable\n\n")
		for _, s := range r.Scenarios {
			if s.Status == NotApplicable {
				fmt.Fprintf(&b, "- %s — %s: %s\n", s.Feature, s.Name, s.Failure)
			}
		}
	}
	return b.String()
}

// oneLine is s with its white space runs made single spaces, cut to at
// most max bytes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		return strings.ToValidUTF8(s[:max], "") + " …"
	}
	return s
}

func verdict(r Report) string {
	if r.Passed() {
		return scorecards.VerdictPass
	}
	return scorecards.VerdictFail
}

// GateSidecarCounts is the scorecard gate of a run through the sidecar: its
// counts per method, tool, operation and status equal the harness's.
const GateSidecarCounts = "sidecar counts equal the harness's"

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
			Transport: r.Target.Transport, Storage: r.Target.Storage, ServerName: r.Target.ServerName, ServerVersion: r.Target.ServerVersion,
			Profile: r.Target.Profile},
		Harness: h,
		Machine: scorecards.CurrentMachine(),
		Axes:    []scorecards.Axis{scorecards.Correctness(r.Levels)},
	}
	if r.Observability != nil {
		ax := scorecards.ChecksAxis(scorecards.AxisObservability, scorecards.DefaultWeight(scorecards.AxisObservability), r.Observability)
		ax.Summary = "sidecar counts vs the harness's: " + summarise(r.Observability)
		s.Axes = append(s.Axes, ax)
		g := scorecards.Gate{Name: GateSidecarCounts, Passed: r.CountsAgree(), Detail: summarise(r.Observability)}
		s.Gates = append(s.Gates, g)
	}
	return s
}
