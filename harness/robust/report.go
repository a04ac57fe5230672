package robust

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// Tally counts passed, failed and not applicable results.
func Tally(results []Result) (passed, failed, na int) {
	for _, r := range results {
		switch {
		case r.NotApplicable:
			na++
		case r.Passed:
			passed++
		default:
			failed++
		}
	}
	return passed, failed, na
}

// Axis returns the scorecard's robustness axis: one check per applicable
// input and fault, scored as the share passed.
func Axis(results []Result) scorecards.Axis {
	var checks []scorecards.Check
	for _, r := range results {
		if !r.NotApplicable {
			checks = append(checks, scorecards.Check{Name: r.Name, Passed: r.Passed, Detail: r.Detail})
		}
	}
	a := scorecards.ChecksAxis(scorecards.AxisRobustness, scorecards.DefaultWeight(scorecards.AxisRobustness), checks)
	passed, failed, na := Tally(results)
	a.Summary = fmt.Sprintf("bad-input catalogue and faults: %d passed, %d failed, %d not applicable", passed, failed, na)
	return a
}

// Gate is the name of the robustness run's gate: every bad input refused
// and every fault survived.
const Gate = "every bad input refused, every fault survived"

// Write writes robustness.json (every result) and robustness.md (the
// failures first, then a table of every input) into dir.
func Write(dir string, results []Result) error {
	b, err := json.MarshalIndent(map[string]any{"results": results}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "robustness.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "robustness.md"), []byte(Markdown(results)), 0o644)
}

// Markdown renders the results for people.
func Markdown(results []Result) string {
	var b strings.Builder
	passed, failed, na := Tally(results)
	fmt.Fprintf(&b, "# Robustness: bad inputs and faults\n\n%d passed, %d failed, %d not applicable.\n", passed, failed, na)
	if len(results) > 0 && results[0].Era != "" {
		fmt.Fprintf(&b, "\nMCP wire era %s: the inputs of the other era only are not applicable.\n", results[0].Era)
	}
	if failed > 0 {
		b.WriteString("\n## Failed\n\n")
		for _, r := range results {
			if !r.Passed && !r.NotApplicable {
				fmt.Fprintf(&b, "- `%s`: %s (rule: %s)\n", r.Name, cell(r.Detail), r.Rule)
			}
		}
	}
	b.WriteString("\n## Every input\n\n| input | layer | outcome | passed | detail |\n|---|---|---|---|---|\n")
	for _, r := range results {
		mark := "yes"
		switch {
		case r.NotApplicable:
			mark = "n/a"
		case !r.Passed:
			mark = "**no**"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.Name, r.Layer, r.Outcome, mark, cell(r.Detail))
	}
	return b.String()
}

// cell makes text safe for a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
