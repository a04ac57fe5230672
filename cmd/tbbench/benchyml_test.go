package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/thoughtbox-bench/tbbench/harness/load/threshold"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
)

// TestBenchWorkflowRunsTheABGate reads .github/workflows/bench.yml: its ab
// job runs one tbbench load with a base and a head subject, the base as the
// baseline, and a workload whose thresholds judge the head against it; each
// subject parses as tbbench will parse it.
func TestBenchWorkflowRunsTheABGate(t *testing.T) {
	doc, err := os.ReadFile("../../.github/workflows/bench.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			If    string `yaml:"if"`
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(doc, &wf); err != nil {
		t.Fatal(err)
	}
	ab, ok := wf.Jobs["ab"]
	if !ok || !strings.Contains(ab.If, "pull_request") {
		t.Fatalf("no ab job for pull requests: %+v", wf.Jobs)
	}
	var run string
	for _, s := range ab.Steps {
		if strings.Contains(s.Run, "tbbench load") {
			run = s.Run
		}
	}
	if run == "" {
		t.Fatal("the ab job runs no tbbench load")
	}
	for _, want := range []string{"--tier regression", "--transport http", "--baseline base", `--subject "base=cmd:`, `--subject "head=cmd:`, "exit $status"} {
		if !strings.Contains(run, want) {
			t.Errorf("the ab job's command lacks %s:\n%s", want, run)
		}
	}
	wl := regexp.MustCompile(`--workload (\S+)`).FindStringSubmatch(run)
	if wl == nil {
		t.Fatal("no --workload")
	}
	w, err := workload.Load("../../" + wl[1])
	if err != nil {
		t.Fatal(err)
	}
	tier, err := w.Tier(workload.Regression)
	if err != nil {
		t.Fatal(err)
	}
	against := 0
	for _, x := range tier.Thresholds {
		if x.Selector.Kind() == threshold.Ratio && x.Selector.Tags[threshold.TagVersus] == threshold.VersusBaseline {
			against++
		}
	}
	if against == 0 || len(tier.Ceiling) == 0 {
		t.Errorf("the A/B workload judges nothing against the base (%d thresholds) or holds the ceiling to nothing", against)
	}
	flags := regexp.MustCompile(`flags="([^"]*)"`).FindStringSubmatch(run)
	if flags == nil {
		t.Fatal("no flags= line")
	}
	for _, m := range regexp.MustCompile(`--subject "([^"]+)"`).FindAllStringSubmatch(run, -1) {
		v := strings.NewReplacer("$flags", flags[1], "$RUNNER_TEMP", "/tmp/runner").Replace(m[1])
		s, err := parseSubject(v, targetspec.Spec{Transport: "http"}, true)
		if err != nil {
			t.Errorf("%s: %v", m[1], err)
			continue
		}
		if !strings.Contains(s.Spec.Command, "{port}") || s.Spec.Transport != "http" {
			t.Errorf("%s: %+v", m[1], s.Spec)
		}
	}
}
