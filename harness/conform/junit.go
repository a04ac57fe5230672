package conform

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// JUnit XML, written from the results rather than by godog's formatter, so
// that it says what the console and conformance.md say: a failed @core or
// @intent scenario is a <failure>; a not applicable one is <skipped>; an
// @quirk result is information, never a failure: <skipped> with the outcome
// (quirk present or absent) as its message and in <system-out>.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func seconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }

// JUnit renders the results as JUnit XML: one testsuite per feature file,
// one testcase per scenario, named "@level @suite name".
func (r Report) JUnit() ([]byte, error) {
	root := junitSuites{Name: "tbbench conform " + r.RunID, Time: seconds(float64(r.FinishedAt.Sub(r.StartedAt).Milliseconds()))}
	index := map[string]int{}
	for _, s := range r.Scenarios {
		i, ok := index[s.Feature]
		if !ok {
			i = len(root.Suites)
			index[s.Feature] = i
			root.Suites = append(root.Suites, junitSuite{Name: s.Feature})
		}
		suite := &root.Suites[i]
		c := junitCase{Name: fmt.Sprintf("@%s @%s %s", s.Level, s.Suite, s.Name), ClassName: strings.TrimSuffix(s.Feature, ".feature"),
			Time: seconds(s.DurationMS)}
		switch {
		case s.Status == NotApplicable:
			c.Skipped = &junitMessage{Message: "not applicable: " + s.Failure}
		case s.Informational():
			outcome := "quirk present"
			if s.Status != Passed {
				outcome = "quirk absent"
			}
			c.Skipped = &junitMessage{Message: "informational (@quirk): " + outcome}
			c.SystemOut = outcome
			if s.Failure != "" {
				c.SystemOut += ": " + s.Failure
			}
		case s.Status == Failed:
			c.Failure = &junitMessage{Message: oneLine(s.Failure, 200), Type: "@" + s.Level, Text: s.Failure + "\ntranscript: " + s.Transcript}
			suite.Failures++
			root.Failures++
		}
		if c.Skipped != nil {
			suite.Skipped++
			root.Skipped++
		}
		suite.Tests++
		root.Tests++
		suite.Cases = append(suite.Cases, c)
	}
	if r.Observability != nil {
		// The sidecar's counts are a gate of the run: one more test case.
		c := junitCase{Name: GateSidecarCounts, ClassName: "observability", Time: "0.000", SystemOut: summarise(r.Observability)}
		if !r.CountsAgree() {
			c.Failure = &junitMessage{Message: "the sidecar's counts differ from the harness's", Text: strings.Join(failedChecks(r.Observability), "\n")}
		}
		root.Suites = append(root.Suites, junitSuite{Name: "observability", Tests: 1, Cases: []junitCase{c}})
		root.Tests++
		if c.Failure != nil {
			root.Suites[len(root.Suites)-1].Failures++
			root.Failures++
		}
	}
	for i := range root.Suites {
		var ms float64
		for _, s := range r.Scenarios {
			if s.Feature == root.Suites[i].Name {
				ms += s.DurationMS
			}
		}
		root.Suites[i].Time = seconds(ms)
	}
	b, err := xml.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
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
