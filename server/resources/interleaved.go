package resources

import (
	"fmt"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/clip"
)

type guideMode struct {
	name, title, purpose string
	required, optional   []string
	guidance             []string
}

var capabilityText = map[string]string{
	"thoughtbox_workspace": "Thoughtbox (`thoughtbox_gateway`): the reasoning workspace where every step is recorded",
	"retrieval_search":     "a search or retrieval tool (web, documents, code search) to gather evidence",
	"code_repo":            "read and write access to the code repository",
	"sandbox_execute":      "a sandbox to run code and tests",
}

var guideModes = []guideMode{
	{"research", "Research", "answer a question from external evidence, citing what was found",
		[]string{"thoughtbox_workspace", "retrieval_search"}, nil,
		[]string{"Record each search as a thought: the query, why, and what came back.", "Separate evidence (E) from hypotheses (H) in the cipher.", "Stop searching when two independent sources agree or when new searches return nothing new."}},
	{"analysis", "Analysis", "reason through a problem with the information at hand, reaching a justified conclusion",
		[]string{"thoughtbox_workspace"}, []string{"retrieval_search"},
		[]string{"Branch for each competing explanation and compare the branches before concluding.", "Revise earlier thoughts when a premise turns out wrong rather than working around it.", "Use a mental model (`mental_models`) when the problem fits one."}},
	{"development", "Development", "change code: plan, implement, run and verify in small steps",
		[]string{"thoughtbox_workspace", "code_repo", "sandbox_execute"}, []string{"retrieval_search"},
		[]string{"Record the plan before editing; record each edit and each test run as thoughts.", "Run the tests after every meaningful change and record the result, pass or fail.", "When a test fails, branch to investigate rather than piling fixes onto the main chain."}},
}

// InterleavedModes lists the modes of thoughtbox://interleaved/{mode}.
func InterleavedModes() []string {
	out := make([]string, len(guideModes))
	for i, m := range guideModes {
		out[i] = m.name
	}
	return out
}

// InterleavedGuide renders the interleaved-thinking guide of one mode; an
// unknown mode is an error listing the valid ones.
func InterleavedGuide(mode string) (string, error) {
	for _, m := range guideModes {
		if m.name == mode {
			return m.render(), nil
		}
	}
	return "", fmt.Errorf("Invalid mode: %s. Must be one of: %s", clip.String(mode), strings.Join(InterleavedModes(), ", "))
}

func (m guideMode) render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Interleaved Thinking: %s Mode\n\n## Overview\n\nUse Thoughtbox as the place where reasoning happens while you %s. Alternate: think a step in Thoughtbox, act with a tool, record what the action showed, think again.\n\n", m.title, m.purpose)
	b.WriteString("## Required Capabilities\n\n")
	for _, c := range m.required {
		b.WriteString("- " + capabilityText[c] + "\n")
	}
	b.WriteString("\n## Optional Capabilities\n\n")
	if len(m.optional) == 0 {
		b.WriteString("- none\n")
	}
	for _, c := range m.optional {
		b.WriteString("- " + capabilityText[c] + "\n")
	}
	b.WriteString(`
## Process Phases

### Phase 1: Tooling Inventory
List the tools you actually have. Record the list as your first thought.

### Phase 2: Tooling Sufficiency Assessment
Compare the inventory with the required capabilities above. If something required is missing, say so in a thought and stop or ask, rather than pretending.

### Phase 3: Strategy in Thoughtbox
Plan the steps as thoughts: what to find out, in what order, and how you will know you are done.

### Phase 4: Interleaved Execution Loop
Repeat: one thought stating the next action and why; the action; one thought recording the result and what it changes. Revise or branch when results contradict the plan.

### Phase 5: Final Answer
Write the conclusion as a thought with nextThoughtNeeded false, citing the thoughts it rests on, then answer the user.

## Execution Pattern

` + "```" + `
thought (plan) → tool call → thought (observation) → thought (decision) → tool call → ...
` + "```" + `

## Mode-Specific Guidance

`)
	for _, g := range m.guidance {
		b.WriteString("- " + g + "\n")
	}
	fmt.Fprintf(&b, `
## Honesty Requirements

- Never record a result you did not observe.
- Say when a tool failed or was unavailable.
- Mark guesses as hypotheses, not findings.

## Self-Check Procedure

Before the final answer: does every claim trace to a recorded thought? Were contradicting results addressed? Is anything required still missing?

## References

This is the %s mode of `+"`thoughtbox://interleaved/{mode}`"+` (`+"`thoughtbox://interleaved/%s`"+`). See also `+"`thoughtbox://patterns-cookbook`"+` and the interleaved-thinking prompt.
`, m.name, m.name)
	return b.String()
}
