package diff

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Markdown renders the report for people.
func (r Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Differential run: %s against %s\n\n", r.A.Label, r.B.Label)
	for _, s := range []SideInfo{r.A, r.B} {
		how := "given"
		if s.Detected {
			how = "detected"
		}
		fmt.Fprintf(&b, "- **%s**: %s (profile %s, %s)\n", s.Label, s.Address, s.Profile, how)
	}
	fmt.Fprintf(&b, "\n%d seeded reasoning sessions, %d thoughts on each side, %d comparisons. %d differences.\n\n", r.Sessions, r.Thoughts, r.Checks, len(r.Differences))
	b.WriteString("Compared:\n\n")
	for _, c := range r.Compared {
		fmt.Fprintf(&b, "- %s\n", c)
	}
	if len(r.NotCompared) > 0 {
		b.WriteString("\nNot compared:\n\n")
		for _, c := range r.NotCompared {
			fmt.Fprintf(&b, "- %s\n", c)
		}
	}
	if len(r.Differences) > 0 {
		fmt.Fprintf(&b, "\n| Session | Thought | What | %s | %s |\n|---|---|---|---|---|\n", r.A.Label, r.B.Label)
		for _, d := range r.Differences {
			t := d.Thought
			if d.Step < 0 {
				t = "(export)"
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %s | %s |\n", d.Session, t, d.What, cell(d.A), cell(d.B))
		}
	}
	return b.String()
}

func cell(s string) string {
	return strings.NewReplacer("|", `\\|`, "\n", " ").Replace(s)
}

// Write writes diff.json and diff.md into dir.
func (r Report) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	j, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "diff.json"), append(j, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "diff.md"), []byte(r.Markdown()), 0o644)
}
