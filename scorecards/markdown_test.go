package scorecards

import (
	"strings"
	"testing"
)

func TestMarkdownShowsTheKeyFigures(t *testing.T) {
	s := sample()
	s.Finish()
	md := s.Markdown()
	for _, want := range []string{
		"# tbbench scorecard: reference",
		"**Verdict: FAIL** · overall score 75.0%",
		// normalisation over the measured axes is stated
		"weighted mean of the measured axes only (correctness, observability): their weights, 0.40 of 1.00, are renormalised to 1.",
		"Not measured, so not counted: robustness, conformance, performance, stability, security.",
		"| correctness | 90.0% | 0.25 |",
		"| observability | 50.0% | 0.15 | 1 of 2 checks passed, 1 inconclusive, 1 not applicable |",
		"| performance | not measured | 0.20 |",
		"| @core | 18 | 1 | 1 | 90.0% | required |",
		"| @intent | 9 | 1 | 0 | 90.0% | required |",
		"| @quirk | 0 | 5 | 0 | 0.0% | informational |",
		"## Failed checks\n\n- observability: quantiles agree — p95 off by 40% | client 12ms\n\n",
		"## Checks inconclusive\n\n- observability: overhead ≤ 1 ms — 0.9 [0.7, 1.2]\n\n## Checks not applicable\n\n- observability: notifications counted — no notification in this run\n",
		"| required levels all pass | FAIL | core: 1 failed, 1 skipped; intent: 1 failed, 0 skipped |",
		"| correctness >= 0.95 | FAIL | correctness 90.0%, threshold 95.0% |",
		"- Name: reference (embedded)",
		"- Transport: http, storage: fs",
		"- Server: thoughtbox 1.2.2-ref",
		"- CPU: Test CPU @ 3.00GHz, 8 cores, GOMAXPROCS 8",
		"- Memory: 16.0 GiB",
		"linux/amd64, kernel 6.1.0-test",
		"(1m30s)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
}

func TestMarkdownPassingRunAndEscaping(t *testing.T) {
	s := Scorecard{
		Target: Target{Name: "ref", Kind: TargetURL, Address: "http://127.0.0.1:1731/mcp"},
		Axes:   []Axis{Correctness([]LevelResult{{Level: Core, Passed: 3, Required: true}})},
		Gates:  []Gate{{Name: "custom", Passed: true, Detail: "a|b"}},
	}
	s.Finish()
	md := s.Markdown()
	for _, want := range []string{
		"**Verdict: PASS** · overall score 100.0%",
		"| custom | pass | a\\|b |",
		"| required levels all pass | pass | all scenarios of core passed |",
		"- Address: `http://127.0.0.1:1731/mcp`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Contains(md, "## Failed checks") {
		t.Error("failed checks section without failed checks")
	}
	if t.Failed() {
		t.Log(md)
	}
}

func TestMarkdownWithoutMeasuredAxes(t *testing.T) {
	s := Scorecard{}
	s.Finish()
	md := s.Markdown()
	if !strings.Contains(md, "overall score not measured") || !strings.Contains(md, "No axis was measured") {
		t.Fatalf("markdown:\n%s", md)
	}
}
