package robust

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// seqFamily is the sequential-thinking family's catalogue
// (features/families/sequential-thinking.md). The family has no reads: the
// only view of what a server holds is the answer to a thought, so the state
// is read with a probe thought on the main connection, whose answer must
// show the history one longer than at the previous probe (a refused input
// that was counted anyway shows as two) and the same branches.
type seqFamily struct {
	lastLength float64 // thoughtHistoryLength at the previous probe; -1 before the first
	probed     bool
}

func (*seqFamily) name() string { return profile.SequentialThinking.Name() }
func (*seqFamily) faults() bool { return false }

// seqThought returns valid sequentialthinking arguments but for the members
// given, which replace or (as "-key") remove the defaults.
func seqThought(members ...string) json.RawMessage {
	fields := map[string]string{"thought": `"robustness probe"`, "thoughtNumber": "4", "totalThoughts": "5", "nextThoughtNeeded": "true"}
	for _, m := range members {
		if k, ok := strings.CutPrefix(m, "-"); ok {
			delete(fields, k)
			continue
		}
		k, v, _ := strings.Cut(m, "=")
		fields[k] = v
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", k, fields[k])
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}

func (f *seqFamily) setUp(ctx context.Context, conns [numConns]*target.Conn) error {
	f.lastLength = -1
	for _, args := range []json.RawMessage{
		seqThought(`thought="Catalogue baseline one"`, "thoughtNumber=1"),
		seqThought(`thought="Catalogue baseline two"`, "thoughtNumber=2"),
		seqThought(`thought="Catalogue baseline three"`, "thoughtNumber=3"),
		seqThought(`thought="Catalogue branch"`, "thoughtNumber=3", "branchFromThought=2", `branchId="alt"`),
	} {
		res, err := conns[ConnMain].CallTool(ctx, profile.SequentialThinkingTool, args)
		if err == nil && res.IsError {
			err = fmt.Errorf("%s", firstLine(res.Text()))
		}
		if err != nil {
			return fmt.Errorf("setting up (main thought): %w", err)
		}
	}
	return nil
}

// state records a probe thought on the main connection.
func (f *seqFamily) state(ctx context.Context, conns [numConns]*target.Conn) (map[string]string, error) {
	res, err := conns[ConnMain].CallTool(ctx, profile.SequentialThinkingTool, seqThought(`thought="State probe"`))
	if err == nil && res.IsError {
		err = fmt.Errorf("%s", firstLine(res.Text()))
	}
	if err != nil {
		return nil, fmt.Errorf("the probe thought on main: %w", err)
	}
	var ans struct {
		Length   *float64 `json:"thoughtHistoryLength"`
		Branches []string `json:"branches"`
	}
	if err := json.Unmarshal([]byte(res.Text()), &ans); err != nil || ans.Length == nil {
		return nil, fmt.Errorf("the probe thought's answer has no thoughtHistoryLength: %s", firstLine(res.Text()))
	}
	grew := "1 (the probe)"
	if f.lastLength >= 0 && *ans.Length-f.lastLength != 1 {
		grew = fmt.Sprintf("%v (the probe and %v more)", *ans.Length-f.lastLength, *ans.Length-f.lastLength-1)
	}
	f.lastLength = *ans.Length
	return map[string]string{"main thoughtHistoryLength growth since the last probe": grew,
		"main branches": strings.Join(ans.Branches, ",")}, nil
}

// inputs are the family's bad inputs: every one is refused by its schema
// (C2, C12) or, for the tool's name, by MCP (C13).
func (*seqFamily) inputs() []Input {
	const schema = "the tool's input schema refuses it, and a refused thought leaves no trace (families/sequential-thinking.md C2, C12)"
	tool := func(name string, args json.RawMessage) Input {
		return Input{Name: name, Rule: schema, Layer: LayerTool, Tool: profile.SequentialThinkingTool, Arguments: args, Conn: ConnMain}
	}
	in := []Input{
		tool("seq/thought/missing", seqThought("-thought")),
		tool("seq/thought/number", seqThought("thought=42")),
		tool("seq/thought/null", seqThought("thought=null")),
		tool("seq/thought/array", seqThought(`thought=["a"]`)),
		tool("seq/thoughtNumber/zero", seqThought("thoughtNumber=0")),
		tool("seq/thoughtNumber/negative", seqThought("thoughtNumber=-1")),
		tool("seq/thoughtNumber/fraction", seqThought("thoughtNumber=1.5")),
		tool("seq/thoughtNumber/word", seqThought(`thoughtNumber="four"`)),
		tool("seq/thoughtNumber/null", seqThought("thoughtNumber=null")),
		tool("seq/thoughtNumber/missing", seqThought("-thoughtNumber")),
		tool("seq/totalThoughts/zero", seqThought("totalThoughts=0")),
		tool("seq/totalThoughts/negative", seqThought("totalThoughts=-5")),
		tool("seq/totalThoughts/missing", seqThought("-totalThoughts")),
		tool("seq/nextThoughtNeeded/missing", seqThought("-nextThoughtNeeded")),
		tool("seq/nextThoughtNeeded/word", seqThought(`nextThoughtNeeded="yes"`)),
		tool("seq/nextThoughtNeeded/number", seqThought("nextThoughtNeeded=1")),
		tool("seq/nextThoughtNeeded/null", seqThought("nextThoughtNeeded=null")),
		tool("seq/branchId/number", seqThought("branchFromThought=1", "branchId=5")),
		tool("seq/revisesThought/zero", seqThought("isRevision=true", "revisesThought=0")),
		tool("seq/arguments/array", json.RawMessage(`[]`)),
		tool("seq/arguments/missing", nil),
		{Name: "seq/tool/readme-name", Rule: "an unknown tool is an error (MCP tools/call; families/sequential-thinking.md C13)", Layer: LayerTool,
			Tool: "sequential_thinking", Arguments: seqThought(), Conn: ConnMain},
	}
	sort.Slice(in, func(i, j int) bool { return in[i].Name < in[j].Name })
	return in
}
