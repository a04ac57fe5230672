// Package prompts is the reference server's twelve MCP prompts: their
// names, descriptions and arguments (prompts/list), their texts
// (prompts/get), argument checking and argument completion. It is
// transport-neutral: mcpserver registers it with the MCP library.
package prompts

import (
	_ "embed"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/resources"
)

var (
	//go:embed texts/interleaved_thinking.md
	interleavedText string
	//go:embed texts/spec_designer.md
	specDesignerText string
	//go:embed texts/spec_validator.md
	specValidatorText string
	//go:embed texts/spec_orchestrator.md
	specOrchestratorText string
	//go:embed texts/specification_suite.md
	specSuiteText string
)

// Arg is one declared argument of a prompt. All arguments are strings.
type Arg struct {
	Name        string
	Description string
	Required    bool
	// Values, when set, are the valid values (and the completions).
	Values []string
	// Suggest, when set, are completion suggestions for a free argument.
	Suggest []string
}

// Prompt is one prompt.
type Prompt struct {
	Name        string
	Description string
	Args        []Arg
	render      func(args map[string]string) (string, error)
}

// Set is the server's prompts in list order.
type Set struct {
	Prompts []Prompt
}

// ArgError reports a missing or invalid prompt argument; Valid lists the
// allowed values when there is a set.
type ArgError struct {
	Prompt, Arg, Problem string
	Valid                []string
}

func (e *ArgError) Error() string {
	msg := fmt.Sprintf("Invalid arguments for prompt %s: argument %s %s", e.Prompt, e.Arg, e.Problem)
	if len(e.Valid) > 0 {
		msg += " (valid values: " + strings.Join(e.Valid, ", ") + ")"
	}
	return msg
}

// UnknownPromptError reports a prompt name the server does not have.
type UnknownPromptError struct {
	Name  string
	Valid []string
}

func (e *UnknownPromptError) Error() string {
	return "Prompt " + clip.String(e.Name) + " not found. Available prompts: " + strings.Join(e.Valid, ", ")
}

var boolValues = []string{"true", "false"}

// New builds the prompts; list_mcp_assets describes catalog.
func New(catalog *resources.Catalog) *Set {
	fixed := func(text string) func(map[string]string) (string, error) {
		return func(map[string]string) (string, error) { return text, nil }
	}
	s := &Set{}
	s.Prompts = []Prompt{
		{"list_mcp_assets", "Overview of all MCP capabilities, tools, resources, and quickstart guide", nil,
			func(map[string]string) (string, error) { return assets(catalog, s), nil }},
		{"interleaved-thinking", "Use this Thoughtbox server as a reasoning workspace to alternate between internal reasoning steps and external tool/action invocation. Enables structured multi-phase execution with tooling inventory, sufficiency assessment, strategy development, and execution.",
			[]Arg{{Name: "task", Description: "The task to reason about", Required: true},
				{Name: "thoughts_limit", Description: "Maximum number of thoughts", Suggest: []string{"25", "50", "100"}},
				{Name: "clear_folder", Description: "Whether to clear folder (true/false)", Values: boolValues}},
			withVariables(interleavedText, []variable{{"TASK", "task", ""}, {"THOUGHTS_LIMIT", "thoughts_limit", "100"}, {"CLEAR_FOLDER", "clear_folder", "false"}})},
		{"subagent-summarize", "Get instructions for using Claude Code's Task tool to retrieve and summarize Thoughtbox sessions with context isolation. Reduces context consumption by 10-40x.",
			[]Arg{{Name: "request", Description: "What you want to do with Thoughtbox sessions (e.g., 'summarize session abc-123', 'search for authentication discussions', 'synthesize all sessions about architecture')"}},
			subagentSummarize},
		{"evolution-check", "Get instructions for checking which prior thoughts should be updated when a new insight is added. Uses sub-agent pattern for context isolation. Based on A-Mem paper.",
			[]Arg{{Name: "newThought", Description: "The new thought/insight that was just added"},
				{Name: "sessionId", Description: "Session ID containing prior thoughts to check"},
				{Name: "priorThoughts", Description: "Prior thoughts formatted as 'S1: ...\\nS2: ...' (alternative to sessionId)"}},
			evolutionCheck},
		{"test-thoughtbox", resources.TestsThoughtboxDescription, nil, fixed(resources.TestsThoughtbox)},
		{"test-notebook", resources.TestsNotebookDescription, nil, fixed(resources.TestsNotebook)},
		{"test-mental-models", resources.TestsMentalModelsDescription, nil, fixed(resources.TestsMentalModels)},
		{"test-memory", resources.TestsKnowledgeDescription, nil, fixed(resources.TestsKnowledge)},
		{"spec-designer", "Design and produce implementation specifications through structured cognitive loops. Creates specs from prompts using OODA loop building blocks.",
			[]Arg{{Name: "prompt", Description: "What to design specifications for", Required: true},
				{Name: "output_folder", Description: "Folder to output specs to (default: .specs/)"},
				{Name: "depth", Description: "Spec depth: shallow, standard, or comprehensive (default: standard)", Values: []string{"shallow", "standard", "comprehensive"}},
				{Name: "max_specs", Description: "Maximum number of specs to produce (default: 5)", Suggest: []string{"1", "3", "5", "10"}},
				{Name: "plan_only", Description: "Only plan, do not write specs (default: false)", Values: boolValues}},
			withVariables(specDesignerText, []variable{{"PROMPT", "prompt", ""}, {"OUTPUT_FOLDER", "output_folder", ".specs/"}, {"DEPTH", "depth", "standard"},
				{"MAX_SPECS", "max_specs", "5"}, {"PLAN_ONLY", "plan_only", "false"}, {"CONFIDENCE_THRESHOLD", "", "0.85"}})},
		{"spec-validator", "Systematically validate specification documents against current codebase and project architecture. Identifies gaps, contradictions, and feasibility issues.",
			[]Arg{{Name: "spec_path", Description: "Path to the spec file or folder to validate", Required: true},
				{Name: "strict", Description: "Treat major findings as blocking (default: false)", Values: boolValues},
				{Name: "deep", Description: "Trace interfaces to callers and tests (default: false)", Values: boolValues},
				{Name: "report_only", Description: "Only report, do not fix (default: false)", Values: boolValues}},
			withVariables(specValidatorText, []variable{{"SPEC_PATH", "spec_path", ""}, {"STRICT_MODE", "strict", "false"}, {"DEEP_VALIDATION", "deep", "false"},
				{"REPORT_ONLY", "report_only", "false"}, {"RESUME", "", "false"}})},
		{"spec-orchestrator", "Coordinate implementation of multiple specification documents from a folder. Manages dependencies, tracks progress, and prevents implementation spirals using Operations Research principles.",
			[]Arg{{Name: "spec_folder", Description: "Folder containing the specs to implement", Required: true},
				{Name: "budget", Description: "Work budget in units (default: 100)", Suggest: []string{"50", "100", "200"}},
				{Name: "max_iterations", Description: "Fix attempts before re-planning (default: 3)", Suggest: []string{"2", "3", "5"}},
				{Name: "plan_only", Description: "Only plan, do not implement (default: false)", Values: boolValues}},
			withVariables(specOrchestratorText, []variable{{"SPEC_FOLDER", "spec_folder", ""}, {"BUDGET", "budget", "100"}, {"MAX_ITERATIONS", "max_iterations", "3"},
				{"CONFIDENCE_THRESHOLD", "", "0.9"}, {"WORKTREE_MODE", "", "false"}, {"PLAN_ONLY", "plan_only", "false"}})},
		{"specification-suite", "Chain the design → validate → orchestrate lifecycle into one command. Moves from blank prompt to implemented, validated specs.",
			[]Arg{{Name: "prompt_or_spec_path", Description: "A prompt to design from, or a path to existing specs", Required: true},
				{Name: "output_folder", Description: "Folder to output specs to (default: .specs/)"},
				{Name: "depth", Description: "Spec depth: shallow, standard, or comprehensive (default: standard)", Values: []string{"shallow", "standard", "comprehensive"}},
				{Name: "budget", Description: "Work budget in units (default: 100)", Suggest: []string{"50", "100", "200"}},
				{Name: "plan_only", Description: "Only plan (default: false)", Values: boolValues},
				{Name: "skip_design", Description: "Skip the design stage (default: false)", Values: boolValues},
				{Name: "skip_validation", Description: "Skip the validation stage (default: false)", Values: boolValues}},
			withVariables(specSuiteText, []variable{{"PROMPT_OR_SPEC_PATH", "prompt_or_spec_path", ""}, {"OUTPUT_FOLDER", "output_folder", ".specs/"},
				{"DEPTH", "depth", "standard"}, {"MAX_SPECS", "", "5"}, {"STRICT_MODE", "", "false"}, {"DEEP_VALIDATION", "", "false"},
				{"BUDGET", "budget", "100"}, {"MAX_ITERATIONS", "", "3"}, {"PLAN_ONLY", "plan_only", "false"}, {"RESUME", "", "false"},
				{"SKIP_DESIGN", "skip_design", "false"}, {"SKIP_VALIDATION", "skip_validation", "false"}})},
	}
	return s
}

// Names lists the prompts' names in list order.
func (s *Set) Names() []string {
	out := make([]string, len(s.Prompts))
	for i, p := range s.Prompts {
		out[i] = p.Name
	}
	return out
}

// Find returns the prompt with this name.
func (s *Set) Find(name string) (Prompt, bool) {
	for _, p := range s.Prompts {
		if p.Name == name {
			return p, true
		}
	}
	return Prompt{}, false
}

// Get renders a prompt: the arguments are checked first (required ones
// present and not empty, enumerated ones among their values, numeric ones
// whole numbers, no undeclared ones).
func (s *Set) Get(name string, args map[string]string) (string, error) {
	p, ok := s.Find(name)
	if !ok {
		return "", &UnknownPromptError{name, s.Names()}
	}
	declared := map[string]Arg{}
	for _, a := range p.Args {
		declared[a.Name] = a
		v, given := args[a.Name]
		if a.Required && strings.TrimSpace(v) == "" {
			return "", &ArgError{Prompt: name, Arg: a.Name, Problem: "is required"}
		}
		if given && len(a.Values) > 0 && !contains(a.Values, v) {
			return "", &ArgError{Prompt: name, Arg: a.Name, Problem: "has an invalid value " + strconv.Quote(clip.String(v)), Valid: a.Values}
		}
		if given && len(a.Suggest) > 0 {
			if n, err := strconv.Atoi(v); err != nil || n < 1 {
				return "", &ArgError{Prompt: name, Arg: a.Name, Problem: "must be a whole number >= 1, got " + strconv.Quote(clip.String(v))}
			}
		}
	}
	var extra []string
	for k := range args {
		if _, ok := declared[k]; !ok {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		var valid []string
		for _, a := range p.Args {
			valid = append(valid, a.Name)
		}
		problem := "is not declared by this prompt"
		if len(valid) == 0 {
			problem += ", which takes no arguments"
		}
		return "", &ArgError{Prompt: name, Arg: clip.String(strings.Join(extra, ", ")), Problem: problem, Valid: valid}
	}
	return p.render(args)
}

// Complete returns the completions of a prompt argument that start with
// prefix; an unknown prompt or argument is an error.
func (s *Set) Complete(name, arg, prefix string) ([]string, error) {
	p, ok := s.Find(name)
	if !ok {
		return nil, &UnknownPromptError{name, s.Names()}
	}
	for _, a := range p.Args {
		if a.Name != arg {
			continue
		}
		values := a.Values
		if values == nil {
			values = a.Suggest
		}
		out := []string{}
		for _, v := range values {
			if strings.HasPrefix(v, prefix) {
				out = append(out, v)
			}
		}
		return out, nil
	}
	var valid []string
	for _, a := range p.Args {
		valid = append(valid, a.Name)
	}
	return nil, &ArgError{Prompt: name, Arg: clip.String(arg), Problem: "is not declared by this prompt", Valid: valid}
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// variable is one line of a prompt's Variables block: NAME: the argument's
// value, or the default.
type variable struct{ name, arg, def string }

func withVariables(text string, vars []variable) func(map[string]string) (string, error) {
	text = strings.TrimSpace(text)
	return func(args map[string]string) (string, error) {
		var lines []string
		for _, v := range vars {
			val := v.def
			if a, ok := args[v.arg]; ok && v.arg != "" && a != "" {
				val = a
			}
			lines = append(lines, v.name+": "+val)
		}
		return strings.Replace(text, "{{VARIABLES}}", strings.Join(lines, "\n"), 1), nil
	}
}
