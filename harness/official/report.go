package official

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/junit"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// Report is the outcome of one run of the official suite against a target.
type Report struct {
	RunID      string    `json:"runId"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	// Suite names the suite: package, version and the Node that ran it.
	Suite struct {
		Package     string `json:"package"`
		Version     string `json:"version"`
		NodeVersion string `json:"nodeVersion"`
	} `json:"suite"`
	Target struct {
		Kind      string     `json:"kind"`
		Address   string     `json:"address"`
		Transport string     `json:"transport"`
		Storage   string     `json:"storage,omitempty"`
		URL       string     `json:"url,omitempty"`
		Server    ServerInfo `json:"server"`
	} `json:"target"`
	// Surface is what the target declared and offered.
	Surface Surface `json:"surface"`
	// Revisions are the MCP revisions whose requirement sets were run.
	Revisions []string `json:"revisions"`
	// Requirements are the map the verdicts were made with.
	Requirements map[string]Requirement `json:"requirements"`
	Scenarios    []Result               `json:"scenarios"`
}

// OfRevision returns the results judged at revision rev.
func OfRevision(rs []Result, rev string) []Result {
	var out []Result
	for _, r := range rs {
		if r.Revision == rev {
			out = append(out, r)
		}
	}
	return out
}

// ScoredOnly returns the results of the scenarios the suite scores.
func ScoredOnly(rs []Result) []Result {
	var out []Result
	for _, r := range rs {
		if r.Scored {
			out = append(out, r)
		}
	}
	return out
}

// Summary is one revision's line: scored verdicts, then the unscored.
func Summary(rs []Result) string {
	p, f, na := Tally(ScoredOnly(rs))
	line := fmt.Sprintf("%d passed, %d failed, %d not applicable", p, f, na)
	if all := len(rs); all > p+f+na {
		up, uf, una := Tally(rs)
		line += fmt.Sprintf("; not scored by the suite: %d passed, %d failed, %d not applicable", up-p, uf-f, una-na)
	}
	return line
}

// Package is the npm package of the official suite.
const Package = "@modelcontextprotocol/conformance"

// WriteJSON writes official.json in dir.
func (r Report) WriteJSON(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "official.json"), append(b, '\n'), 0o644)
}

// Markdown renders the report for people.
func (r Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Official MCP conformance suite: %s\n\n", r.RunID)
	fmt.Fprintf(&b, "%s %s (Node %s) against %s (%s", Package, r.Suite.Version, r.Suite.NodeVersion, r.Target.Address, r.Target.Transport)
	if r.Target.Storage != "" {
		fmt.Fprintf(&b, ", %s storage", r.Target.Storage)
	}
	fmt.Fprintf(&b, "), server %s %s.\n\n", r.Target.Server.Name, r.Target.Server.Version)
	fmt.Fprintf(&b, "Declared capabilities: %s. A scenario is not applicable when the target does not declare the capability or offer the tool, prompt or resource (a fixture of the suite's everything server) it needs; a check that alone needs a missing fixture is left out of its scenario's verdict. Scenarios the suite runs but never scores for a revision (extensions, pending, added after the release) are marked and do not decide the exit status.\n",
		orNone(strings.Join(r.Surface.CapabilityNames(), ", ")))
	for _, rev := range r.Revisions {
		rs := OfRevision(r.Scenarios, rev)
		fmt.Fprintf(&b, "\n## Requirements of MCP %s\n\n**%s** (%d server scenarios).\n\n", rev, Summary(rs), len(rs))
		b.WriteString("| scenario | verdict | checks (ok/failed/warn) | time | reason |\n|---|---|---|---|---|\n")
		for _, s := range rs {
			name := s.Scenario
			if !s.Scored {
				name += " (not scored: " + orNone(s.Category) + ")"
			}
			checks, took := "", ""
			if s.Status != NotApplicable {
				checks = fmt.Sprintf("%d/%d/%d", s.Successes, s.Failures, s.Warnings)
				took = fmt.Sprintf("%.1f s", s.DurationMS/1000)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", name, s.Status, checks, took, mdCell(s.Reason))
		}
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func mdCell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}

// WriteMarkdown writes official.md in dir.
func (r Report) WriteMarkdown(dir string) error {
	return os.WriteFile(filepath.Join(dir, "official.md"), []byte(r.Markdown()), 0o644)
}

// JUnit renders the report as JUnit XML: one test case per scenario, the
// not applicable ones skipped with their reason.
func (r Report) JUnit() ([]byte, error) {
	s := junit.Suite{Name: Package + " " + r.Suite.Version}
	var total float64
	for _, sc := range r.Scenarios {
		c := junit.Case{ClassName: "official." + r.Target.Transport + "." + sc.Revision, Name: sc.Scenario, Time: junit.Seconds(sc.DurationMS)}
		total += sc.DurationMS / 1000
		var lines []string
		for _, ch := range sc.Checks {
			line := fmt.Sprintf("[%s] %s: %s", ch.Status, ch.ID, ch.Description)
			if ch.ErrorMessage != "" {
				line += " — " + ch.ErrorMessage
			}
			lines = append(lines, line)
		}
		c.SystemOut = strings.Join(lines, "\n")
		switch sc.Status {
		case Failed:
			if !sc.Scored {
				c.Skipped = &junit.Message{Message: "failed, not scored by the suite (" + sc.Category + "): " + firstLine(sc.Reason)}
				break
			}
			c.Failure = &junit.Message{Message: firstLine(sc.Reason), Text: sc.Reason + "\n\n" + sc.Output}
		case NotApplicable:
			c.Skipped = &junit.Message{Message: "not applicable: " + sc.Reason}
		}
		s.Add(c)
	}
	s.Time = junit.Seconds(total * 1000)
	return junit.Marshal(s.Name, total, []junit.Suite{s})
}

// WriteJUnit writes junit.xml in dir.
func (r Report) WriteJUnit(dir string) error {
	b, err := r.JUnit()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "junit.xml"), b, 0o644)
}

// Write writes official.json, official.md and junit.xml in dir.
func (r Report) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return errors.Join(r.WriteJSON(dir), r.WriteMarkdown(dir), r.WriteJUnit(dir))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Axis returns the conformance axis: one check per applicable scenario the
// suite scores, per revision, scored as the share that passed. Not
// applicable and unscored scenarios are left out of the score and counted
// in the summary; with none applicable (a stdio target) the axis is not
// measured.
func (r Report) Axis() scorecards.Axis {
	var checks []scorecards.Check
	for _, s := range ScoredOnly(r.Scenarios) {
		if s.Status == NotApplicable {
			continue
		}
		name := "official " + s.Revision + " " + s.Scenario
		if s.Pending {
			name += " (pending in the suite)"
		}
		checks = append(checks, scorecards.Check{Name: name, Passed: s.Status == Passed, Detail: s.Reason})
	}
	a := scorecards.ChecksAxis(scorecards.AxisConformance, scorecards.DefaultWeight(scorecards.AxisConformance), checks)
	var parts []string
	for _, rev := range r.Revisions {
		parts = append(parts, rev+": "+Summary(OfRevision(r.Scenarios, rev)))
	}
	a.Summary = fmt.Sprintf("%s %s, server scenarios by revision: %s", Package, r.Suite.Version, strings.Join(parts, "; "))
	return a
}

// Gate is the name of the official run's gate: every applicable scenario
// the suite scores passed.
const Gate = "every applicable scored scenario of the official suite passed"

// Scorecard makes the run's scorecard with the conformance axis and its
// gate.
func (r Report) Scorecard(h scorecards.Harness) scorecards.Scorecard {
	name := r.Target.Server.Name
	if name == "" {
		name = r.Target.Address
	}
	axis := r.Axis()
	return scorecards.Scorecard{
		SchemaVersion: scorecards.SchemaVersion,
		RunID:         r.RunID,
		StartedAt:     r.StartedAt,
		FinishedAt:    r.FinishedAt,
		Target: scorecards.Target{Name: name, Kind: r.Target.Kind, Address: r.Target.Address,
			Transport: r.Target.Transport, Storage: r.Target.Storage, ServerName: r.Target.Server.Name, ServerVersion: r.Target.Server.Version},
		Harness: h,
		Machine: scorecards.CurrentMachine(),
		Axes:    []scorecards.Axis{axis},
		Gates:   []scorecards.Gate{scorecards.ChecksGate(Gate, axis)},
	}
}
