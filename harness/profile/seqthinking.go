package profile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// SequentialThinkingTool is the one tool of the sequential-thinking family.
const SequentialThinkingTool = "sequentialthinking"

// SequentialThinking is the family of @modelcontextprotocol/server-sequential-thinking
// (features/families/sequential-thinking.md): a "thought" is one call of
// its tool with the same fields; it has no stages (Begin sends nothing), no
// reads, no structure, no sessions and no exports. It numbers nothing
// itself, so a thought without thoughtNumber or totalThoughts is something
// it lacks rather than something the profile makes up.
var SequentialThinking Profile = sequentialThinking{}

type sequentialThinking struct{}

func (sequentialThinking) Name() string      { return "sequential-thinking" }
func (sequentialThinking) Tools() []string   { return []string{SequentialThinkingTool} }
func (sequentialThinking) Open(c Caller) Ops { return seqOps{c} }

// Supports: thoughts only.
func (sequentialThinking) Supports(op string) bool { return op == Begin || op == "thought" }

// seqFields are the tool's arguments, which a thought passes on as they are.
var seqFields = map[string]bool{"thought": true, "thoughtNumber": true, "totalThoughts": true, "nextThoughtNeeded": true,
	"isRevision": true, "revisesThought": true, "branchFromThought": true, "branchId": true, "needsMoreThoughts": true}

type seqOps struct{ c Caller }

func (s seqOps) Do(ctx context.Context, op string, args any) (target.ToolResult, error) {
	name := SequentialThinking.Name()
	switch op {
	case Begin:
		return target.ToolResult{}, nil
	case "thought":
	case "start_new", "cipher":
		return target.ToolResult{}, &LacksError{name, "stages (start_new, cipher)"}
	default:
		return target.ToolResult{}, &LacksError{name, fmt.Sprintf("operation %q", op)}
	}
	m, err := argMap(args)
	if err != nil {
		return target.ToolResult{}, err
	}
	out := make(map[string]any, len(m))
	var extra []string
	for k, v := range m {
		switch {
		case seqFields[k]:
			out[k] = v
		case k == "verbose":
			// Presentation only: this family's answer always lists branches.
		default:
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return target.ToolResult{}, &LacksError{name, fmt.Sprintf("thought argument %q", extra[0])}
	}
	if _, ok := m["thoughtNumber"]; !ok {
		return target.ToolResult{}, &LacksError{name, "automatic numbering (a thought without thoughtNumber)"}
	}
	if _, ok := m["totalThoughts"]; !ok {
		return target.ToolResult{}, &LacksError{name, "default total (a thought without totalThoughts)"}
	}
	return s.c.CallTool(ctx, SequentialThinkingTool, out)
}

// argMap returns args as a map: a map as it is, JSON (a json.RawMessage or
// []byte) decoded with its numbers kept exact, nil as an empty map.
func argMap(args any) (map[string]any, error) {
	switch a := args.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return a, nil
	case json.RawMessage:
		return decodeArgs(a)
	case []byte:
		return decodeArgs(a)
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("profile: arguments: %w", err)
	}
	return decodeArgs(b)
}

func decodeArgs(b []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("profile: arguments are not a JSON object: %w", err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}
