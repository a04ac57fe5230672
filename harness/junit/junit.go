// Package junit writes JUnit XML, the test report format CI systems read:
// test suites of test cases, each passed, failed (<failure>) or skipped
// (<skipped>), with the counts on every suite and on the root.
package junit

import (
	"encoding/xml"
	"fmt"
)

// Message is the body of a <failure> or <skipped> element.
type Message struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// Case is one test case. A case with neither Failure nor Skipped passed.
type Case struct {
	Name      string   `xml:"name,attr"`
	ClassName string   `xml:"classname,attr"`
	Time      string   `xml:"time,attr"`
	Failure   *Message `xml:"failure,omitempty"`
	Skipped   *Message `xml:"skipped,omitempty"`
	SystemOut string   `xml:"system-out,omitempty"`
}

// Suite is one test suite; Add keeps its counts.
type Suite struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`
	Cases    []Case `xml:"testcase"`
}

// Add appends c and counts it.
func (s *Suite) Add(c Case) {
	s.Cases = append(s.Cases, c)
	s.Tests++
	if c.Failure != nil {
		s.Failures++
	}
	if c.Skipped != nil {
		s.Skipped++
	}
}

type root struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []Suite  `xml:"testsuite"`
}

// Marshal renders the suites under a root named name that took seconds,
// with the XML header; the root's counts are the suites' sums.
func Marshal(name string, seconds float64, suites []Suite) ([]byte, error) {
	r := root{Name: name, Time: Seconds(seconds * 1000), Suites: suites}
	for _, s := range suites {
		r.Tests += s.Tests
		r.Failures += s.Failures
		r.Skipped += s.Skipped
	}
	b, err := xml.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

// Seconds formats a duration in milliseconds as JUnit's seconds.
func Seconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }
