package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/harness/robust"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// robustLastLine is the last line of a robust run that judged something.
var robustLastLine = regexp.MustCompile(`^robustness: (\d+) passed, (\d+) failed, (\d+) not applicable; security: \d+ failed; [\d.]+ s; results in .+$`)

// someInputs makes robust runs send a few inputs of each kind: of both
// eras, of the 2025 era's sessions and of the 2026 era's own.
func someInputs(t *testing.T) {
	t.Helper()
	robustInputs = func(all []robust.Input) []robust.Input {
		var out []robust.Input
		for _, in := range all {
			switch in.Name {
			case "thought/thoughtNumber-zero", "operation/unknown", "jsonrpc/not-json-words", "session/unknown-id",
				"era/header-Mcp-Method-mismatch", "era/meta-protocolVersion-unsupported", "era/contextId-not-hex",
				"era/requestState-tampered", "era/inputResponses-unasked-get_state":
				out = append(out, in)
			}
		}
		if len(out) != 9 {
			t.Fatalf("%d of the 9 inputs are in the catalogue", len(out))
		}
		return out
	}
	t.Cleanup(func() { robustInputs = nil })
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestRobustRunsEachEra runs robust against the reference server in every
// era it speaks (both, by default): each era's results, scorecard and
// transcript are under era-<version>/, the inputs of the other era only
// are not applicable there, the run directory holds one scorecard of the
// eras and the security checks, and the last line sums the eras.
func TestRobustRunsEachEra(t *testing.T) {
	someInputs(t)
	out := t.TempDir()
	code, stdout, stderr := captureAll(t, "robust", "--storage", "memory", "--direct", "--no-faults", "--out", out, "--run-id", "r")
	if code != exitPass {
		t.Fatalf("exit %d, want %d:\n%s\n%s", code, exitPass, stdout, stderr)
	}
	m := robustLastLine.FindStringSubmatch(lastLine(stdout))
	if m == nil || m[1] != "12" || m[2] != "0" || m[3] != "6" {
		t.Errorf("last line %q; want 12 passed, 0 failed, 6 not applicable (4 inputs judged in the 2025 era, 8 in the 2026 era)", lastLine(stdout))
	}
	dir := filepath.Join(out, "r")
	for _, era := range target.Eras {
		eraDir := filepath.Join(dir, "era-"+string(era))
		for _, f := range []string{"robustness.json", "robustness.md", "scorecard.json", "transcripts/robustness.jsonl"} {
			if _, err := os.Stat(filepath.Join(eraDir, f)); err != nil {
				t.Errorf("era %s: %v", era, err)
			}
		}
		var doc struct{ Results []robust.Result }
		b, _ := os.ReadFile(filepath.Join(eraDir, "robustness.json"))
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("era %s: robustness.json: %v", era, err)
		}
		for _, r := range doc.Results {
			other := (strings.HasPrefix(r.Name, "era/") && !era.Modern()) || (strings.HasPrefix(r.Name, "session/") && era.Modern())
			if r.Era != era || r.NotApplicable != other || (!other && !r.Passed) {
				t.Errorf("era %s: %s: era %s, not applicable %v, passed %v: %s", era, r.Name, r.Era, r.NotApplicable, r.Passed, r.Detail)
			}
		}
	}
	for _, f := range []string{"scorecard.json", "security.json", "transcripts/security.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	var card struct {
		Verdict string
		Axes    []struct {
			Name   string
			Checks []struct{ Name string }
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "scorecard.json"))
	if err := json.Unmarshal(b, &card); err != nil {
		t.Fatal(err)
	}
	if card.Verdict != "pass" {
		t.Errorf("the run passed but its scorecard's verdict is %q", card.Verdict)
	}
	eras := map[bool]bool{}
	for _, a := range card.Axes {
		if a.Name == "robustness" {
			for _, c := range a.Checks {
				eras[strings.Contains(c.Name, "era 2026-07-28")] = true
			}
		}
	}
	if !eras[true] || !eras[false] {
		t.Errorf("the run's scorecard: robustness checks of the 2026 era %v and of the 2025 era %v", eras[true], eras[false])
	}
}

// old2025 is a server that speaks only the 2025 era and answers every
// gateway call with an empty object: a target that refuses nothing.
func old2025(t *testing.T) string {
	s := mcpsrv.NewMCPServer("old", "1")
	s.AddTool(mcp.NewTool("thoughtbox_gateway"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("{}"), nil
	})
	srv := httptest.NewServer(mcpsrv.NewStreamableHTTPServer(s, mcpsrv.WithDisableLocalhostProtection(true),
		mcpsrv.WithStreamableHTTPProtocolVersions(mcp.ProtocolVersion20251125)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRobustEraNotSpoken: an era the target does not speak is not
// applicable, with the reason, never passed or failed. Asked for alone it
// exits 2; beside an era the target speaks, the exit status is that era's
// (1 here: the server refuses nothing).
func TestRobustEraNotSpoken(t *testing.T) {
	someInputs(t)
	url := old2025(t)
	out := t.TempDir()
	code, stdout, stderr := captureAll(t, "robust", "--url", url, "--direct", "--no-faults", "--no-security", "--era", "2026-07-28",
		"--out", out, "--run-id", "alone")
	if code != exitBadInput || !strings.Contains(stdout, "era 2026-07-28 not applicable: ") {
		t.Errorf("2026 era alone: exit %d, want %d:\n%s\n%s", code, exitBadInput, stdout, stderr)
	}
	code, stdout, stderr = captureAll(t, "robust", "--url", url, "--direct", "--no-faults", "--no-security", "--era", "both",
		"--out", out, "--run-id", "both")
	if code != exitFail {
		t.Errorf("both eras: exit %d, want %d:\n%s\n%s", code, exitFail, stdout, stderr)
	}
	if m := robustLastLine.FindStringSubmatch(lastLine(stdout)); m == nil || m[2] == "0" {
		t.Errorf("last line %q; want the 2025 era's failures", lastLine(stdout))
	}
	md, _ := os.ReadFile(filepath.Join(out, "both", "era-2026-07-28", "robustness.md"))
	if !strings.Contains(string(md), "era 2026-07-28 not applicable: ") {
		t.Errorf("era-2026-07-28/robustness.md:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(out, "both", "era-2025-11-25", "robustness.json")); err != nil {
		t.Error(err)
	}
	if card, _ := os.ReadFile(filepath.Join(out, "both", "scorecard.json")); !strings.Contains(string(card), `"verdict": "fail"`) ||
		!strings.Contains(string(card), robust.Gate) {
		t.Errorf("the run failed but its scorecard does not say so by its gate:\n%s", card)
	}
	if code, _, stderr := captureAll(t, "robust", "--era", "2027-01-01", "--out", out); code != exitBadInput || !strings.Contains(stderr, "--era") {
		t.Errorf("unknown era: exit %d: %s", code, stderr)
	}
	if code, _, stderr := captureAll(t, "robust", "--critique-timeout", "-5s", "--out", out); code != exitBadInput || !strings.Contains(stderr, "--critique-timeout") {
		t.Errorf("negative critique timeout: exit %d: %s", code, stderr)
	}
}

// A robustness run's scorecard passes on its own gate when every judged
// input passed, and fails when the run was interrupted before the end of
// the catalogue, whatever the inputs judged so far did.
func TestRobustCardGates(t *testing.T) {
	axis := robust.Axis([]robust.Result{{Name: "a", Passed: true}, {Name: "b", Passed: true}})
	if c := robustCard("r", target.Info{}, "gateway", time.Now(), nil, []scorecards.Axis{axis}); c.Verdict != scorecards.VerdictPass {
		t.Errorf("every input passed: verdict %q, gates %+v", c.Verdict, c.Gates)
	}
	if c := robustCard("r", target.Info{}, "gateway", time.Now(), context.Canceled, []scorecards.Axis{axis}); c.Verdict != scorecards.VerdictFail {
		t.Errorf("interrupted: verdict %q, gates %+v", c.Verdict, c.Gates)
	}
	failed := robust.Axis([]robust.Result{{Name: "a", Passed: true}, {Name: "b"}})
	if c := robustCard("r", target.Info{}, "gateway", time.Now(), nil, []scorecards.Axis{failed}); c.Verdict != scorecards.VerdictFail {
		t.Errorf("an input failed: verdict %q, gates %+v", c.Verdict, c.Gates)
	}
}
