package official

import (
	"context"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"

	"github.com/thoughtbox-bench/tbbench/harness/junit"
)

// thoughtboxSurface is what the reference server declares and offers.
var thoughtboxSurface = Surface{Transport: "http",
	Capabilities: map[string]any{"logging": map[string]any{}, "resources": map[string]any{}, "tools": map[string]any{}},
	Tools:        []string{"thoughtbox_gateway"}, Resources: []string{"thoughtbox://cipher"}}

func TestRequirementsJudgeApplicability(t *testing.T) {
	cases := []struct {
		scenario string
		surface  Surface
		want     string // "" applicable, else a part of the reason
	}{
		{"server-initialize", thoughtboxSurface, ""},
		{"dns-rebinding-protection", thoughtboxSurface, ""},
		{"logging-set-level", thoughtboxSurface, ""},
		{"tools-list", thoughtboxSurface, ""},
		{"resources-list", thoughtboxSurface, ""},
		{"prompts-list", thoughtboxSurface, "capability prompts not declared"},
		{"completion-complete", thoughtboxSurface, "capability completions not declared"},
		{"resources-subscribe", thoughtboxSurface, "capability resources declared without subscribe"},
		{"tools-call-simple-text", thoughtboxSurface, "tool test_simple_text not offered"},
		{"resources-read-text", thoughtboxSurface, "resource test://static-text not offered"},
		{"ping", Surface{Transport: "stdio"}, "only over Streamable HTTP"},
		{"tools-call-simple-text", Surface{Transport: "http", Capabilities: map[string]any{"tools": map[string]any{}},
			Tools: []string{"test_simple_text"}}, ""},
		{"resources-subscribe", Surface{Transport: "http", Capabilities: map[string]any{"resources": map[string]any{"subscribe": true}},
			Resources: []string{"test://watched-resource"}}, ""},
		{"logging-set-level", Surface{Transport: "http", Capabilities: map[string]any{"tools": map[string]any{}}}, "capability logging not declared"},
	}
	for _, c := range cases {
		req, ok := Requirements[c.scenario]
		if !ok {
			t.Fatalf("%s: no requirement", c.scenario)
		}
		got := req.Unmet(c.surface)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s against %v: unmet %q, want %q", c.scenario, c.surface.CapabilityNames(), got, c.want)
		}
	}
}

func TestParseList(t *testing.T) {
	out := "Server scenarios (test against a server):\n  - server-initialize [2025-06-18,2025-11-25]\n  - dns-rebinding-protection [2025-11-25]\n  - future\n\nClient scenarios (test against a client):\n  - initialize [2025-06-18,2025-11-25]\n"
	got := parseList(out)
	if len(got) != 3 || got[0].Name != "server-initialize" || len(got[0].SpecVersions) != 2 || got[1].SpecVersions[0] != "2025-11-25" || got[2].Name != "future" {
		t.Fatalf("parseList = %+v", got)
	}
}

func TestReportJUnitAndAxis(t *testing.T) {
	rep := Report{RunID: "r", Scenarios: []Result{
		{Scenario: "ping", Status: Passed, Successes: 1, Checks: []Check{{ID: "ping", Status: "SUCCESS"}}},
		{Scenario: "tools-list", Status: Failed, Failures: 1, Reason: "tools-list: Tool 0: missing description"},
		{Scenario: "prompts-list", Status: NotApplicable, Reason: "capability prompts not declared"},
	}}
	b, err := rep.JUnit()
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Suites []junit.Suite `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &suites); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	s := suites.Suites[0]
	if s.Tests != 3 || s.Failures != 1 || s.Skipped != 1 || s.Cases[1].Failure == nil || s.Cases[2].Skipped == nil {
		t.Fatalf("junit: %+v", s)
	}
	a := rep.Axis()
	if a.Score == nil || *a.Score != 0.5 || len(a.Checks) != 2 {
		t.Fatalf("axis: %+v", a)
	}
	if !strings.Contains(a.Summary, "1 not applicable") {
		t.Errorf("summary %q", a.Summary)
	}
}

func TestFindToolsNamesTheMissingPath(t *testing.T) {
	dir := t.TempDir()
	_, err := FindTools(context.Background(), dir)
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "make conformance") {
		t.Fatalf("FindTools(empty dir) = %v", err)
	}
}

// TestReferenceServerPassesTheOfficialSuite runs every server scenario of
// the installed suite against the embedded reference server over HTTP:
// none may fail; the resources, prompts and completion scenarios whose
// fixtures it has no reason to offer (test_prompt_with_arguments...) are
// not applicable, the others pass.
func TestReferenceServerPassesTheOfficialSuite(t *testing.T) {
	ctx := context.Background()
	tl, err := FindTools(ctx, "")
	if errors.Is(err, ErrNotInstalled) {
		t.Skipf("skipped: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	list, err := tl.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tl.SuiteVersion == SuiteVersion {
		for _, s := range list {
			if _, ok := Requirements[s.Name]; !ok {
				t.Errorf("suite %s lists %s, which has no requirement", SuiteVersion, s.Name)
			}
		}
		if len(list) != len(Requirements) {
			t.Errorf("suite %s lists %d server scenarios, the map has %d", SuiteVersion, len(list), len(Requirements))
		}
	}
	tg, err := embedded.New(ctx, embedded.Options{Transport: "http", Storage: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	surface, server, err := Discover(ctx, tg, transcript.Discard())
	if err != nil {
		t.Fatal(err)
	}
	if server.Name == "" || !surface.Declares("tools") || !surface.Declares("prompts") || !surface.Declares("completions") ||
		!surface.Declares("resources") || surface.Declares("resources.subscribe") {
		t.Fatalf("discovered %+v, %+v", server, surface)
	}
	results, err := Run(ctx, Options{Tools: tl, URL: tg.HTTPBase(), Surface: surface, Scenarios: list, Timeout: 2 * time.Minute, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	passed, failed, na := Tally(results)
	t.Logf("%d passed, %d failed, %d not applicable", passed, failed, na)
	by := map[string]Result{}
	for _, r := range results {
		by[r.Scenario] = r
		if r.Status == Failed {
			t.Errorf("%s failed: %s\n%s", r.Scenario, r.Reason, r.Output)
		}
	}
	for _, s := range []string{"server-initialize", "ping", "tools-list", "logging-set-level", "dns-rebinding-protection", "resources-list", "prompts-list"} {
		if by[s].Status != Passed || by[s].Successes == 0 {
			t.Errorf("%s: %+v, want passed with checks", s, by[s])
		}
	}
	if r := by["completion-complete"]; r.Status != NotApplicable || !strings.Contains(r.Reason, "test_prompt_with_arguments") {
		t.Errorf("completion-complete: %+v, want not applicable (fixture prompt not offered)", r)
	}
}

// TestRunJudgesTheSuitesChecks runs a stand-in for Node and the suite that
// writes checks.json as the suite does: a failed check fails the
// scenario, warnings do not, a missing checks.json and the timeout fail it.
func TestRunJudgesTheSuitesChecks(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "node")
	script := `#!/bin/sh
# args: CLI server --url U --scenario S -o DIR ($1 … $8)
s=$6; out=$8; mkdir -p "$out/server-$s-x"
case $s in
ok) echo '[{"id":"a","status":"SUCCESS"},{"id":"w","status":"WARNING"},{"id":"i","status":"INFO"}]' > "$out/server-$s-x/checks.json";;
bad) echo '[{"id":"a","status":"SUCCESS"},{"id":"b","status":"FAILURE","errorMessage":"no"}]' > "$out/server-$s-x/checks.json"; exit 1;;
none) echo crashed; exit 1;;
slow) sleep 30;;
esac
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var scs []Scenario
	for _, n := range []string{"ok", "bad", "none", "slow", "prompts-list"} {
		scs = append(scs, Scenario{Name: n})
	}
	rs, err := Run(context.Background(), Options{Tools: Tools{Node: fake, CLI: "cli.js"}, URL: "http://127.0.0.1:1/mcp",
		Surface: thoughtboxSurface, Scenarios: scs, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"ok": Passed, "bad": Failed, "none": Failed, "slow": Failed, "prompts-list": NotApplicable}
	for _, r := range rs {
		if r.Status != want[r.Scenario] {
			t.Errorf("%s: %s (%s), want %s", r.Scenario, r.Status, r.Reason, want[r.Scenario])
		}
	}
	if rs[0].Successes != 1 || rs[0].Warnings != 1 || !strings.HasPrefix(rs[1].Reason, "b: no") || !strings.Contains(rs[3].Reason, "timed out") {
		t.Errorf("results %+v", rs)
	}
}
