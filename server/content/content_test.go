package content

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
)

var (
	entryOps  = []string{"get_state", "list_sessions", "navigate", "load_context", "start_new", "list_roots", "bind_root"}
	initOps   = []string{"cipher", "session", "deep_analysis"}
	stage2Ops = []string{"thought", "read_thoughts", "get_structure", "notebook", "mental_models", "knowledge"}
)

func allOps() []string {
	ops := append([]string{}, entryOps...)
	ops = append(ops, initOps...)
	return append(ops, stage2Ops...)
}

type text struct {
	name    string
	value   string
	heading string // required first line; "" when there is none
	minLen  int
	maxLen  int
}

func texts() []text {
	return []text{
		{"Cookbook", Cookbook, "# Thoughtbox Patterns Cookbook", 7000, 10500},
		{"Cipher", Cipher, "# Thoughtbox Compression Cipher", 6000, 9500},
		{"CipherNextSteps", CipherNextSteps, "## Next Steps", 200, 1500},
		{"Stage1Operations", Stage1Operations, "# Stage 1 Operations", 3000, 5500},
		{"Stage2Operations", Stage2Operations, "# Stage 2 Operations (Post-Cipher)", 5000, 8500},
		{"ParallelVerification", ParallelVerification, "# Parallel Verification Workflow", 2000, 3500},
		{"Instructions", Instructions, "", 600, 1600},
		{"GatewayDescription", GatewayDescription, "", 800, 1700},
		{"ObservabilityDescription", ObservabilityDescription, "", 250, 700},
	}
}

func TestTextsHeadingsAndSizes(t *testing.T) {
	for _, tx := range texts() {
		if strings.TrimSpace(tx.value) == "" {
			t.Errorf("%s is empty", tx.name)
			continue
		}
		if tx.value != strings.TrimSpace(tx.value) {
			t.Errorf("%s has surrounding white space", tx.name)
		}
		if tx.heading != "" {
			first, _, _ := strings.Cut(tx.value, "\n")
			if first != tx.heading {
				t.Errorf("%s starts with %q, want %q", tx.name, first, tx.heading)
			}
		}
		if n := len(tx.value); n < tx.minLen || n > tx.maxLen {
			t.Errorf("%s is %d bytes, want %d..%d", tx.name, n, tx.minLen, tx.maxLen)
		}
	}
}

func TestNoPlaceholderText(t *testing.T) {
	for _, tx := range texts() {
		low := strings.ToLower(tx.value)
		for _, bad := range []string{"todo", "lorem", "fixme", "xxx"} {
			if strings.Contains(low, bad) {
				t.Errorf("%s contains placeholder-like text %q", tx.name, bad)
			}
		}
	}
}

func TestCookbookPatterns(t *testing.T) {
	section := between(t, Cookbook, "## Core Patterns", "## Combining Patterns")
	heads := regexp.MustCompile(`(?m)^### (\d+)\. (.+)$`).FindAllStringSubmatch(section, -1)
	want := []string{"Forward Thinking", "Backward Thinking", "Branching", "Revision", "Interleaved Thinking", "First Principles"}
	if len(heads) != len(want) {
		t.Fatalf("Core Patterns has %d numbered patterns, want %d", len(heads), len(want))
	}
	for i, h := range heads {
		if h[1] != string(rune('1'+i)) {
			t.Errorf("pattern %d is numbered %s", i+1, h[1])
		}
		if !strings.Contains(h[2], want[i]) {
			t.Errorf("pattern %d heading %q does not contain %q", i+1, h[2], want[i])
		}
	}
	// Every pattern has a when-to-use line, an example and tips.
	parts := regexp.MustCompile(`(?m)^### \d+\. `).Split(section, -1)[1:]
	for i, p := range parts {
		for _, need := range []string{"**When to use:**", "```json", "**Tips:**", `"operation":"thought"`} {
			if !strings.Contains(p, need) {
				t.Errorf("pattern %d lacks %q", i+1, need)
			}
		}
	}
	for _, sec := range []string{"## Core Concept", "### Basic Parameters", "### Extension Parameters", "## Combining Patterns",
		"## Quick Decision Guide", "## Best Practices", "## Common Anti-Patterns", "## Requesting This Guide", "## Accessing Thoughtbox via the Gateway"} {
		if !strings.Contains(Cookbook, "\n"+sec+"\n") {
			t.Errorf("cookbook lacks section %q", sec)
		}
	}
	bp := between(t, Cookbook, "## Best Practices", "## Common Anti-Patterns")
	if n := len(regexp.MustCompile(`(?m)^\d+\. `).FindAllString(bp, -1)); n != 6 {
		t.Errorf("Best Practices has %d numbered items, want 6", n)
	}
	if !strings.Contains(Cookbook, `"includeGuide":true`) || !strings.Contains(Cookbook, `"verbose":true`) {
		t.Error("cookbook does not show how to request the guide")
	}
}

func TestCipherMarkersAndFormat(t *testing.T) {
	table := between(t, Cipher, "## Step Type Markers", "## Logical Operators")
	markers := map[string]string{"H": "Hypothesis", "E": "Evidence", "C": "Conclusion", "Q": "Question",
		"R": "Revision", "P": "Plan", "O": "Observation", "A": "Assumption", "X": "Rejected"}
	rows := regexp.MustCompile(`(?m)^\| ([A-Z]) \| (\w+) \|`).FindAllStringSubmatch(table, -1)
	if len(rows) != len(markers) {
		t.Errorf("marker table has %d rows, want %d", len(rows), len(markers))
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if markers[r[1]] != r[2] {
			t.Errorf("marker %s is described as %q, want %q", r[1], r[2], markers[r[1]])
		}
		seen[r[1]] = true
	}
	for m := range markers {
		if !seen[m] {
			t.Errorf("marker %s missing from the table", m)
		}
	}
	ops := between(t, Cipher, "## Logical Operators", "## Reference Syntax")
	for _, op := range []string{"→", "←", "∴", "∵", "∧", "∨", "¬", "⊕"} {
		if !strings.Contains(ops, "| "+op+" |") {
			t.Errorf("operator %s missing from the operator table", op)
		}
	}
	for _, ref := range []string{"`S1`", "`[S3]`", "`S2-S5`", "`@keyword:S3`", "`@keyword:S2-S4`"} {
		if !strings.Contains(Cipher, ref) {
			t.Errorf("reference form %s missing", ref)
		}
	}
	if !strings.Contains(Cipher, "S<n>|<TYPE>|<REFS>|<CONTENT>") || !strings.Contains(Cipher, "S1|") {
		t.Error("step format or its example is missing")
	}
	step := regexp.MustCompile(`^S\d+\|[HECQRPOAX]\|[^|]+\|.+$`)
	example := between(t, Cipher, "A flaky CI job", "Sent through the gateway")
	n := 0
	for _, line := range strings.Split(example, "\n") {
		if strings.HasPrefix(line, "S") {
			n++
			if !step.MatchString(line) {
				t.Errorf("example step %q does not follow the step format", line)
			}
		}
	}
	if n < 5 {
		t.Errorf("only %d example steps", n)
	}
	for _, sec := range []string{"## Confidence Markers", "## Quantifiers and Modifiers", "## Abbreviated Vocabulary",
		"## Step Format", "## Telegraphic Style Guidelines", "## Usage Protocol", "## Quick Reference Card"} {
		if !strings.Contains(Cipher, "\n"+sec+"\n") {
			t.Errorf("cipher lacks section %q", sec)
		}
	}
}

func TestCipherNextSteps(t *testing.T) {
	for _, op := range stage2Ops {
		if !strings.Contains(CipherNextSteps, "`"+op+"`") {
			t.Errorf("CipherNextSteps does not list %s", op)
		}
	}
	if !strings.Contains(CipherNextSteps, `{"operation":"thought","args":{"thought":"...","nextThoughtNeeded":true}}`) {
		t.Error("CipherNextSteps does not show the first thought call")
	}
}

func TestStageDocuments(t *testing.T) {
	for _, op := range append(append([]string{}, entryOps...), "session", "deep_analysis") {
		if !regexp.MustCompile(`(?m)^## .*\b` + op + `\b`).MatchString(Stage1Operations) {
			t.Errorf("Stage1Operations has no section for %s", op)
		}
	}
	for _, arg := range []string{"filters.search", "target", "sessionId", "newWork.project", "newWork.domain", "rootUri",
		"analysisType", "cognitive_load", "decision_points", "options.includeTimeline"} {
		if !strings.Contains(Stage1Operations, arg) {
			t.Errorf("Stage1Operations does not mention %s", arg)
		}
	}
	for _, sub := range []string{"list", "get", "search", "resume", "export", "analyze", "extract_learnings", "discovery"} {
		if !strings.Contains(Stage1Operations, "| `"+sub+"` |") {
			t.Errorf("Stage1Operations does not document session %s", sub)
		}
	}
	for _, op := range stage2Ops {
		if !strings.Contains(Stage2Operations, "## "+op+"\n") {
			t.Errorf("Stage2Operations has no section for %s", op)
		}
	}
	for _, name := range []string{
		// thought arguments
		"nextThoughtNeeded", "thoughtNumber", "totalThoughts", "isRevision", "revisesThought", "branchFromThought",
		"branchId", "needsMoreThoughts", "includeGuide", "sessionTitle", "sessionTags", "agentId", "agentName",
		"critique", "verbose", "sessionClosed", "closedSessionId", "exportPath",
		// read_thoughts selectors
		"`last`", "`range`",
		// notebook
		"create", "list", "load", "add_cell", "update_cell", "list_cells", "get_cell", "run_cell", "install_deps", "export",
		// mental models
		"get_model", "list_models", "list_tags", "get_capability_graph",
		// knowledge
		"args.action", "create_entity", "get_entity", "list_entities", "add_observation", "create_relation", "query_graph", "stats",
	} {
		if !strings.Contains(Stage2Operations, name) {
			t.Errorf("Stage2Operations does not mention %s", name)
		}
	}
}

func TestParallelVerification(t *testing.T) {
	for _, s := range []string{"## Variables", "{{TASK}}", "{{MAX_BRANCHES}}", "## Phase 1", "## Phase 2", "## Phase 3",
		"## Phase 4", "## Phase 5", "branchFromThought", "branchId"} {
		if !strings.Contains(ParallelVerification, s) {
			t.Errorf("ParallelVerification lacks %q", s)
		}
	}
}

func TestDescriptions(t *testing.T) {
	for _, op := range allOps() {
		if !regexp.MustCompile(`\b` + op + `\b`).MatchString(GatewayDescription) {
			t.Errorf("GatewayDescription does not mention %s", op)
		}
	}
	for _, s := range []string{"thoughtbox://", "Operations", "Tools", "Resources", "stage"} {
		if !strings.Contains(GatewayDescription, s) {
			t.Errorf("GatewayDescription lacks %q", s)
		}
	}
	for _, op := range []string{"health", "metrics", "metrics_range", "sessions", "session_info", "alerts", "dashboard_url"} {
		if !strings.Contains(ObservabilityDescription, op) {
			t.Errorf("ObservabilityDescription does not mention %s", op)
		}
	}
	for _, s := range []string{"Prometheus", "Grafana"} {
		if !strings.Contains(ObservabilityDescription, s) {
			t.Errorf("ObservabilityDescription lacks %q", s)
		}
	}
	order := []string{"thoughtbox_gateway", "get_state", "start_new", "list_sessions", "load_context", "cipher", "thought"}
	pos := 0
	for _, s := range order {
		i := strings.Index(Instructions[pos:], s)
		if i < 0 {
			t.Fatalf("Instructions: %q missing or out of order", s)
		}
		pos += i + len(s)
	}
	if !strings.Contains(Instructions, "stage") {
		t.Error("Instructions do not explain stage errors")
	}
}

// TestJSONExamples checks that every ```json block holds valid JSON values,
// that every gateway call names a real operation, and that the thought
// examples respect the argument rules of the server.
func TestJSONExamples(t *testing.T) {
	known := map[string]bool{}
	for _, op := range allOps() {
		known[op] = true
	}
	branchRe := regexp.MustCompile(`^[a-z0-9-]+$`)
	fence := regexp.MustCompile("(?s)```json\n(.*?)\n```")
	total := 0
	for _, tx := range texts() {
		for _, m := range fence.FindAllStringSubmatch(tx.value, -1) {
			dec := json.NewDecoder(bytes.NewReader([]byte(m[1])))
			for {
				var call struct {
					Operation string         `json:"operation"`
					Args      map[string]any `json:"args"`
				}
				err := dec.Decode(&call)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Errorf("%s: invalid JSON example %q: %v", tx.name, m[1], err)
					break
				}
				total++
				if !known[call.Operation] {
					t.Errorf("%s: example uses unknown operation %q", tx.name, call.Operation)
				}
				if call.Operation != "thought" {
					continue
				}
				if _, ok := call.Args["thought"].(string); !ok {
					t.Errorf("%s: thought example without a thought string", tx.name)
				}
				if _, ok := call.Args["nextThoughtNeeded"].(bool); !ok {
					t.Errorf("%s: thought example without a boolean nextThoughtNeeded", tx.name)
				}
				if b, ok := call.Args["branchId"]; ok {
					s, _ := b.(string)
					if !branchRe.MatchString(s) {
						t.Errorf("%s: invalid branchId %v", tx.name, b)
					}
					if _, ok := call.Args["branchFromThought"]; !ok {
						t.Errorf("%s: branchId %v without branchFromThought", tx.name, b)
					}
				}
				if _, ok := call.Args["isRevision"]; ok {
					if _, ok := call.Args["revisesThought"]; !ok {
						t.Errorf("%s: isRevision without revisesThought", tx.name)
					}
				}
			}
		}
	}
	if total < 20 {
		t.Errorf("only %d JSON examples found", total)
	}
}

func between(t *testing.T, s, from, to string) string {
	t.Helper()
	i := strings.Index(s, from)
	if i < 0 {
		t.Fatalf("%q not found", from)
	}
	rest := s[i+len(from):]
	j := strings.Index(rest, to)
	if j < 0 {
		t.Fatalf("%q not found after %q", to, from)
	}
	return rest[:j]
}
