// Package conform runs the feature files against a target with godog and
// collects one result per scenario, by conformance level and suite.
package conform

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// Scenario statuses.
const (
	Passed        = "passed"
	Failed        = "failed"
	NotApplicable = "not-applicable"
)

// ScenarioResult is the outcome of one scenario.
type ScenarioResult struct {
	Name       string   `json:"name"`
	Feature    string   `json:"feature"`
	Level      string   `json:"level"`
	Suite      string   `json:"suite"`
	Status     string   `json:"status"`
	DurationMS float64  `json:"durationMs"`
	Failure    string   `json:"failure,omitempty"`
	Transcript string   `json:"transcript,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	Quirks     []string `json:"quirks,omitempty"`
}

// Report is the outcome of a run.
type Report struct {
	RunID      string     `json:"runId"`
	StartedAt  time.Time  `json:"startedAt"`
	FinishedAt time.Time  `json:"finishedAt"`
	Target     TargetInfo `json:"target"`
	// Era is the MCP wire era the scenarios spoke.
	Era       string           `json:"era,omitempty"`
	Required  []string         `json:"requiredLevels"`
	Scenarios []ScenarioResult `json:"scenarios"`
	// NotRun counts the selected scenarios not started because the run
	// was to stop (Options.StopWhen).
	NotRun int                      `json:"notRun,omitempty"`
	Levels []scorecards.LevelResult `json:"levels"`
	Nonce  string                   `json:"nonce"`
	// Counts are the requests the harness sent, by method and by
	// tool/operation.
	Counts transcript.Counts `json:"counts"`
	// Observability compares the sidecar's counts with Counts (absent when
	// the harness talked to the target directly).
	Observability []scorecards.Check `json:"observability,omitempty"`
}

// TargetInfo describes the server a report is about.
type TargetInfo struct {
	Kind          string `json:"kind"`
	Address       string `json:"address"`
	Transport     string `json:"transport"`
	Storage       string `json:"storage,omitempty"`
	ServerName    string `json:"serverName,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
	// Profile is the family the run judged the target as (detected from
	// tools/list, or given with --profile).
	Profile string `json:"profile,omitempty"`
	// ProfileDetected says the profile was detected rather than given.
	ProfileDetected bool `json:"profileDetected,omitempty"`
}

// Totals are a run's scenarios by outcome. An @quirk scenario describes a
// defect of the original server: whatever its outcome it is information,
// neither a pass nor a failure.
type Totals struct {
	// Passed and Failed count the @core and @intent scenarios that ran.
	Passed, Failed int
	// Informational counts the @quirk scenarios that ran: QuirkPresent
	// (the scenario passed: the server has the quirk) plus QuirkAbsent.
	Informational, QuirkPresent, QuirkAbsent int
	// NotApplicable counts the scenarios the target could not run.
	NotApplicable int
}

// String is the last line tbbench conform prints, e.g. "109 passed, 0
// failed, 4 informational (quirk)".
func (t Totals) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d informational (quirk)", t.Passed, t.Failed, t.Informational)
}

// Totals counts the scenarios by outcome.
func (r Report) Totals() Totals {
	var t Totals
	for _, s := range r.Scenarios {
		switch {
		case s.Status == NotApplicable:
			t.NotApplicable++
		case s.Level == string(scorecards.Quirk):
			t.Informational++
			if s.Status == Passed {
				t.QuirkPresent++
			} else {
				t.QuirkAbsent++
			}
		case s.Status == Passed:
			t.Passed++
		default:
			t.Failed++
		}
	}
	return t
}

// Tally is Totals in short: the passed and failed @core and @intent
// scenarios (@quirk results are in neither) and the not applicable ones.
func (r Report) Tally() (passed, failed, notApplicable int) {
	t := r.Totals()
	return t.Passed, t.Failed, t.NotApplicable
}

// Informational reports whether a result is information only: an @quirk
// scenario that ran.
func (s ScenarioResult) Informational() bool {
	return s.Level == string(scorecards.Quirk) && s.Status != NotApplicable
}

// RequiredPassed reports whether every scenario of a required level passed.
func (r Report) RequiredPassed() bool {
	for _, l := range r.Levels {
		if l.Required && (l.Failed > 0 || l.Skipped > 0) {
			return false
		}
	}
	return true
}

// CountsAgree reports whether the sidecar's counts agree with the
// harness's (true when the run did not go through the sidecar).
func (r Report) CountsAgree() bool {
	for _, c := range r.Observability {
		if !c.Passed {
			return false
		}
	}
	return true
}

// Passed reports the verdict of the run's scorecard: every scenario of the
// required levels passed, at least one of them ran, and the sidecar's
// counts (when it was in the path) agree with the harness's.
func (r Report) Passed() bool {
	c := r.Scorecard(scorecards.Harness{})
	c.Finish()
	return c.Verdict == scorecards.VerdictPass
}

// levels tallies results per conformance level; not-applicable scenarios are
// left out.
func levels(results []ScenarioResult, required []string) []scorecards.LevelResult {
	by := map[string]*scorecards.LevelResult{}
	for _, l := range []scorecards.Level{scorecards.Core, scorecards.Intent, scorecards.Quirk} {
		by[string(l)] = &scorecards.LevelResult{Level: l, Required: contains(required, string(l)) && l != scorecards.Quirk}
	}
	for _, s := range results {
		l := by[s.Level]
		if l == nil {
			continue
		}
		switch s.Status {
		case Passed:
			l.Passed++
		case Failed:
			l.Failed++
		}
	}
	out := []scorecards.LevelResult{*by["core"], *by["intent"], *by["quirk"]}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if strings.EqualFold(y, x) {
			return true
		}
	}
	return false
}

func sortResults(rs []ScenarioResult) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Feature != rs[j].Feature {
			return rs[i].Feature < rs[j].Feature
		}
		return rs[i].Name < rs[j].Name
	})
}
