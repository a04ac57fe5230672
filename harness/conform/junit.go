package conform

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/junit"
)

// JUnit XML, written from the results rather than by godog's formatter, so
// that it says what the console and conformance.md say: a failed @core or
// @intent scenario is a <failure>; a not applicable one is <skipped>; an
// @quirk result is information, never a failure: <skipped> with the outcome
// (quirk present or absent) as its message and in <system-out>.

func seconds(ms float64) string { return junit.Seconds(ms) }

// JUnit renders the results as JUnit XML: one testsuite per feature file,
// one testcase per scenario, named "@level @suite name".
func (r Report) JUnit() ([]byte, error) {
	return junit.Marshal("tbbench conform "+r.RunID, r.FinishedAt.Sub(r.StartedAt).Seconds(), r.suites())
}

// suites are the report's JUnit test suites.
func (r Report) suites() []junit.Suite {
	var suites []junit.Suite
	index := map[string]int{}
	for _, s := range r.Scenarios {
		i, ok := index[s.Feature]
		if !ok {
			i = len(suites)
			index[s.Feature] = i
			suites = append(suites, junit.Suite{Name: s.Feature})
		}
		c := junit.Case{Name: fmt.Sprintf("@%s @%s %s", s.Level, s.Suite, s.Name), ClassName: strings.TrimSuffix(s.Feature, ".feature"),
			Time: seconds(s.DurationMS)}
		switch {
		case s.Status == NotApplicable:
			c.Skipped = &junit.Message{Message: "not applicable: " + s.Failure}
		case s.Informational():
			outcome := "quirk present"
			if s.Status != Passed {
				outcome = "quirk absent"
			}
			c.Skipped = &junit.Message{Message: "informational (@quirk): " + outcome}
			c.SystemOut = outcome
			if s.Failure != "" {
				c.SystemOut += ": " + s.Failure
			}
		case s.Status == Failed:
			c.Failure = &junit.Message{Message: oneLine(s.Failure, 200), Type: "@" + s.Level, Text: s.Failure + "\ntranscript: " + s.Transcript}
		}
		suites[i].Add(c)
	}
	if r.Observability != nil {
		// The sidecar's counts are a gate of the run: one more test case.
		c := junit.Case{Name: GateSidecarCounts, ClassName: "observability", Time: "0.000", SystemOut: summarise(r.Observability)}
		if !r.CountsAgree() {
			c.Failure = &junit.Message{Message: "the sidecar's counts differ from the harness's", Text: strings.Join(failedChecks(r.Observability), "\n")}
		}
		gate := junit.Suite{Name: "observability", Time: "0.000"}
		gate.Add(c)
		suites = append(suites, gate)
	}
	for i := range suites {
		var ms float64
		for _, s := range r.Scenarios {
			if s.Feature == suites[i].Name {
				ms += s.DurationMS
			}
		}
		if suites[i].Name != "observability" {
			suites[i].Time = seconds(ms)
		}
	}
	return suites
}

// WriteEras writes, in dir, the junit.xml and conformance.md of one run in
// several MCP wire eras: each era's test suites, named after the era, and
// each era's report under a heading of its own.
func WriteEras(dir, runID string, reps []Report) error {
	var suites []junit.Suite
	var md strings.Builder
	secs := 0.0
	fmt.Fprintf(&md, "# Conformance in %d MCP wire eras\n\n", len(reps))
	for _, r := range reps {
		for _, s := range r.suites() {
			s.Name = r.Era + " " + s.Name
			suites = append(suites, s)
		}
		secs += r.FinishedAt.Sub(r.StartedAt).Seconds()
		fmt.Fprintf(&md, "- era %s: %s (era-%s/)\n", r.Era, r.Totals(), r.Era)
	}
	for _, r := range reps {
		fmt.Fprintf(&md, "\n---\n\n## Era %s\n\n%s", r.Era, r.Markdown())
	}
	b, err := junit.Marshal("tbbench conform "+runID, secs, suites)
	if err != nil {
		return err
	}
	return errors.Join(os.WriteFile(filepath.Join(dir, "junit.xml"), b, 0o644),
		os.WriteFile(filepath.Join(dir, "conformance.md"), []byte(md.String()), 0o644))
}

// Plus adds the counts of other to t.
func (t Totals) Plus(other Totals) Totals {
	return Totals{Passed: t.Passed + other.Passed, Failed: t.Failed + other.Failed, Informational: t.Informational + other.Informational,
		QuirkPresent: t.QuirkPresent + other.QuirkPresent, QuirkAbsent: t.QuirkAbsent + other.QuirkAbsent,
		NotApplicable: t.NotApplicable + other.NotApplicable}
}

// WriteJUnit writes junit.xml in dir.
func (r Report) WriteJUnit(dir string) (string, error) {
	b, err := r.JUnit()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "junit.xml")
	return path, os.WriteFile(path, b, 0o644)
}
