// Package conform runs the feature files against a target with godog and
// collects one result per scenario, by conformance level and suite.
package conform

import (
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
	RunID      string                   `json:"runId"`
	StartedAt  time.Time                `json:"startedAt"`
	FinishedAt time.Time                `json:"finishedAt"`
	Target     TargetInfo               `json:"target"`
	Required   []string                 `json:"requiredLevels"`
	Scenarios  []ScenarioResult         `json:"scenarios"`
	Levels     []scorecards.LevelResult `json:"levels"`
	Nonce      string                   `json:"nonce"`
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
}

// Tally counts the scenarios by status.
func (r Report) Tally() (passed, failed, notApplicable int) {
	for _, s := range r.Scenarios {
		switch s.Status {
		case Passed:
			passed++
		case Failed:
			failed++
		default:
			notApplicable++
		}
	}
	return
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
