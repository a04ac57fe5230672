package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// Stability is what repeating the scenarios against one target showed
// (pass^k): a scenario whose result differs between two runs is flaky.
type Stability struct {
	// Runs is k, the number of runs.
	Runs int `json:"runs"`
	// Scenarios lists every scenario that ran in some run, sorted by
	// feature and name.
	Scenarios []ScenarioStability `json:"scenarios"`
	// RequiredPassed reports whether every run passed its required levels.
	RequiredPassed bool `json:"requiredPassed"`
	// RunSummaries are one line per run: passed, failed, not applicable.
	RunSummaries []string `json:"runSummaries"`
}

// ScenarioStability is one scenario's results over the runs.
type ScenarioStability struct {
	Feature string `json:"feature"`
	Name    string `json:"name"`
	Level   string `json:"level"`
	// Results has one entry per run: the scenario's status, "missing" when
	// it did not run, several joined with "+" when the name is not unique.
	Results []string `json:"results"`
	// Flaky is set when the results are not all the same.
	Flaky bool `json:"flaky"`
}

// Missing is the result of a scenario absent from one run.
const Missing = "missing"

// Repeat runs the scenarios k times (at least once) against the same
// target and returns the first run's report, with which the caller
// continues as after Run, and the stability over all runs. The first run
// writes to o.OutDir, run i > 1 to o.OutDir/repeats/<i>; o.Progress sees
// the first run only; after each run, each (when not nil) gets its number
// and report. A run that cannot start ends the repetition with its error.
func Repeat(ctx context.Context, o Options, k int, each func(run int, r Report)) (Report, Stability, error) {
	k = max(k, 1)
	var reports []Report
	for i := 1; i <= k; i++ {
		oi := o
		if i > 1 {
			oi.OutDir = filepath.Join(o.OutDir, "repeats", fmt.Sprint(i))
			oi.Progress = nil
			if err := os.MkdirAll(oi.OutDir, 0o755); err != nil {
				return first(reports), Stability{}, err
			}
		}
		rep, err := Run(ctx, oi)
		if err != nil {
			if i == 1 {
				return rep, Stability{}, err
			}
			return reports[0], stabilityOf(reports), fmt.Errorf("run %d of %d: %w", i, k, err)
		}
		reports = append(reports, rep)
		if each != nil {
			each(i, rep)
		}
	}
	return reports[0], stabilityOf(reports), nil
}

func first(rs []Report) Report {
	if len(rs) == 0 {
		return Report{}
	}
	return rs[0]
}

// stabilityOf compares the runs' results scenario by scenario.
func stabilityOf(reports []Report) Stability {
	s := Stability{Runs: len(reports), RequiredPassed: true}
	type key struct{ feature, name string }
	results := map[key][]string{}
	levels := map[key]string{}
	var keys []key
	for i, r := range reports {
		if !r.RequiredPassed() {
			s.RequiredPassed = false
		}
		p, f, na := r.Tally()
		s.RunSummaries = append(s.RunSummaries, fmt.Sprintf("run %d: %d passed, %d failed, %d not applicable", i+1, p, f, na))
		statuses := map[key][]string{}
		for _, sc := range r.Scenarios {
			k := key{sc.Feature, sc.Name}
			if _, ok := results[k]; !ok {
				results[k] = make([]string, len(reports))
				levels[k] = sc.Level
				keys = append(keys, k)
			}
			statuses[k] = append(statuses[k], sc.Status)
		}
		for k, st := range statuses {
			sort.Strings(st)
			results[k][i] = strings.Join(st, "+")
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].feature != keys[j].feature {
			return keys[i].feature < keys[j].feature
		}
		return keys[i].name < keys[j].name
	})
	for _, k := range keys {
		rs := results[k]
		flaky := false
		for i := range rs {
			if rs[i] == "" {
				rs[i] = Missing
			}
			flaky = flaky || rs[i] != rs[0]
		}
		s.Scenarios = append(s.Scenarios, ScenarioStability{Feature: k.feature, Name: k.name, Level: levels[k], Results: rs, Flaky: flaky})
	}
	return s
}

// Flaky returns the scenarios whose result changed between runs.
func (s Stability) Flaky() []ScenarioStability {
	var out []ScenarioStability
	for _, sc := range s.Scenarios {
		if sc.Flaky {
			out = append(out, sc)
		}
	}
	return out
}

// judged reports whether the scenario ran (was not not-applicable) in
// some run.
func (sc ScenarioStability) judged() bool {
	for _, r := range sc.Results {
		if r != NotApplicable {
			return true
		}
	}
	return false
}

// Describe says the results in a few words: "passed ×3" or the sequence.
func (sc ScenarioStability) Describe() string {
	if !sc.Flaky {
		return fmt.Sprintf("%s ×%d", sc.Results[0], len(sc.Results))
	}
	return strings.Join(sc.Results, ", ")
}

// Axes returns the stability axis, pass^k: one check per scenario that ran
// in some run, passed when its result was the same in every run, scored
// as the share of such scenarios. With fewer than two runs nothing is
// measured and Axes returns nil.
func (s Stability) Axes() []scorecards.Axis {
	if s.Runs < 2 {
		return nil
	}
	var checks []scorecards.Check
	for _, sc := range s.Scenarios {
		if !sc.judged() {
			continue
		}
		checks = append(checks, scorecards.Check{Name: fmt.Sprintf("@%s %s / %s: same result in %d runs", sc.Level, sc.Feature, sc.Name, s.Runs),
			Passed: !sc.Flaky, Detail: sc.Describe()})
	}
	a := scorecards.ChecksAxis(scorecards.AxisStability, scorecards.DefaultWeight(scorecards.AxisStability), checks)
	a.Summary = fmt.Sprintf("pass^%d: %d of %d scenarios gave the same result in all %d runs, %d flaky",
		s.Runs, len(checks)-len(s.Flaky()), len(checks), s.Runs, len(s.Flaky()))
	return []scorecards.Axis{a}
}

// Write writes stability.json and stability.md in dir; with fewer than
// two runs it writes nothing.
func (s Stability) Write(dir string) (string, error) {
	if s.Runs < 2 {
		return "", nil
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "stability.json")
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return "", err
	}
	return path, os.WriteFile(filepath.Join(dir, "stability.md"), []byte(s.Markdown()), 0o644)
}

// Markdown renders the runs and the flaky scenarios.
func (s Stability) Markdown() string {
	var b strings.Builder
	flaky := s.Flaky()
	fmt.Fprintf(&b, "# Stability: the scenarios %d times against one target\n\n", s.Runs)
	for _, l := range s.RunSummaries {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	if a := s.Axes(); len(a) > 0 {
		fmt.Fprintf(&b, "\n%s.\n", a[0].Summary)
	}
	if len(flaky) == 0 {
		b.WriteString("\nNo flaky scenario.\n")
		return b.String()
	}
	b.WriteString("\n| level | feature | scenario | results by run |\n|---|---|---|---|\n")
	for _, sc := range flaky {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", sc.Level, sc.Feature, strings.ReplaceAll(sc.Name, "|", "\\|"), sc.Describe())
	}
	return b.String()
}
