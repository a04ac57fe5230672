package robust

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// codeModeFamily is the Code Mode family's catalogue
// (features/families/code-mode.md): bad arguments to tb.thought, sent
// through thoughtbox_execute. Code Mode reports a refused call in its
// result envelope ("error"), never with isError, so its inputs are sent
// over MCP and the envelope unwrapped (profile.Unwrap) before judging. The
// state is the main connection's reasoning session read back with
// tb.session.get.
type codeModeFamily struct {
	session string // the main connection's reasoning session
}

func (*codeModeFamily) name() string { return profile.CodeMode.Name() }
func (*codeModeFamily) faults() bool { return false }

// execute runs one tb call on c and unwraps its envelope.
func execute(ctx context.Context, c *target.Conn, code string) (target.ToolResult, error) {
	res, err := c.CallTool(ctx, profile.CodeModeTool, map[string]any{"code": code})
	if err != nil || res.IsError {
		return res, err
	}
	return profile.Unwrap(res)
}

func (f *codeModeFamily) setUp(ctx context.Context, conns [numConns]*target.Conn) error {
	for _, args := range []string{
		`{"thought":"Catalogue baseline one","thoughtNumber":1,"totalThoughts":5,"nextThoughtNeeded":true,"sessionTitle":"robustness baseline"}`,
		`{"thought":"Catalogue baseline two","thoughtNumber":2,"totalThoughts":5,"nextThoughtNeeded":true}`,
		`{"thought":"Catalogue baseline three","thoughtNumber":3,"totalThoughts":5,"nextThoughtNeeded":true}`,
		`{"thought":"Catalogue branch","thoughtNumber":3,"totalThoughts":5,"nextThoughtNeeded":true,"branchId":"alt","branchFromThought":2}`,
	} {
		res, err := execute(ctx, conns[ConnMain], "async () => tb.thought("+args+")")
		if err == nil && res.IsError {
			err = fmt.Errorf("%s", firstLine(res.Text()))
		}
		if err != nil {
			return fmt.Errorf("setting up (main thought): %w", err)
		}
		var ans struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal([]byte(res.Text()), &ans) == nil && ans.SessionID != "" {
			f.session = ans.SessionID
		}
	}
	if f.session == "" {
		return fmt.Errorf("setting up: no thought answer named its reasoning session")
	}
	return nil
}

// state reads the main connection's reasoning session back.
func (f *codeModeFamily) state(ctx context.Context, conns [numConns]*target.Conn) (map[string]string, error) {
	id, _ := json.Marshal(f.session)
	res, err := execute(ctx, conns[ConnMain], "async () => tb.session.get("+string(id)+")")
	if err == nil && res.IsError {
		err = fmt.Errorf("%s", firstLine(res.Text()))
	}
	if err != nil {
		return nil, fmt.Errorf("tb.session.get on main: %w", err)
	}
	// Every tb.session.get writes the session's updatedAt (and
	// lastAccessedAt) as it reads: left out, as a read's own trace.
	var got map[string]any
	if json.Unmarshal([]byte(res.Text()), &got) == nil {
		if s, ok := got["session"].(map[string]any); ok {
			delete(s, "updatedAt")
		}
		b, _ := json.Marshal(got)
		return map[string]string{"main tb.session.get": normalise(string(b))}, nil
	}
	return map[string]string{"main tb.session.get": normalise(res.Text())}, nil
}

// send delivers a tool input over MCP and classifies the answer as any
// tool input's; an answer of thoughtbox_execute is judged on its unwrapped
// envelope.
func (f *codeModeFamily) send(ctx context.Context, c *target.Conn, in Input) (Outcome, string) {
	params := map[string]any{"name": in.Tool}
	if in.Arguments != nil {
		params["arguments"] = in.Arguments
	}
	raw, err := c.Request(ctx, "tools/call", params)
	outcome, detail := classifyResult(raw, err)
	if outcome != Answered200 || in.Tool != profile.CodeModeTool {
		return outcome, detail
	}
	res, err := target.ParseToolResult(raw)
	if err == nil {
		res, err = profile.Unwrap(res)
	}
	switch {
	case err != nil:
		return Unclear, err.Error()
	case res.IsError:
		return ToolError, "an error in the execute envelope: " + firstLine(res.Text())
	}
	return Answered200, "a result without an error"
}

// inputs are bad arguments to tb.thought (families/code-mode.md section 4)
// and to thoughtbox_execute itself.
func (*codeModeFamily) inputs() []Input {
	const rule = "tb.thought refuses it and stores nothing (families/code-mode.md 4)"
	thought := func(name, args string) Input {
		return Input{Name: name, Rule: rule, Layer: LayerTool, Tool: profile.CodeModeTool, Conn: ConnMain,
			Arguments: json.RawMessage(`{"code":` + jsonString("async () => tb.thought("+args+")") + `}`)}
	}
	in := []Input{
		thought("code-mode/thought/missing", `{"nextThoughtNeeded":true}`),
		thought("code-mode/thought/number", `{"thought":42,"nextThoughtNeeded":true}`),
		thought("code-mode/thought/empty", `{"thought":"","nextThoughtNeeded":true}`),
		thought("code-mode/thought/null", `{"thought":null,"nextThoughtNeeded":true}`),
		thought("code-mode/nextThoughtNeeded/missing", `{"thought":"x"}`),
		thought("code-mode/nextThoughtNeeded/word", `{"thought":"x","nextThoughtNeeded":"yes"}`),
		thought("code-mode/thoughtNumber/word", `{"thought":"x","nextThoughtNeeded":true,"thoughtNumber":"7"}`),
		thought("code-mode/thoughtType/unknown", `{"thought":"x","nextThoughtNeeded":true,"thoughtType":"daydream"}`),
		thought("code-mode/branchId/without-fork", `{"thought":"x","nextThoughtNeeded":true,"branchId":"b1"}`),
		{Name: "code-mode/execute/code-missing", Rule: "thoughtbox_execute needs code (its input schema)", Layer: LayerTool,
			Tool: profile.CodeModeTool, Conn: ConnMain, Arguments: json.RawMessage(`{}`)},
		{Name: "code-mode/execute/code-number", Rule: "thoughtbox_execute's code is a string (its input schema)", Layer: LayerTool,
			Tool: profile.CodeModeTool, Conn: ConnMain, Arguments: json.RawMessage(`{"code":42}`)},
		{Name: "code-mode/tool/gateway", Rule: "an unknown tool is an error (MCP tools/call); Code Mode has no thoughtbox_gateway", Layer: LayerTool,
			Tool: profile.GatewayTool, Conn: ConnMain, Arguments: json.RawMessage(`{"operation":"thought","args":{"thought":"x","nextThoughtNeeded":true}}`)},
	}
	sort.Slice(in, func(i, j int) bool { return in[i].Name < in[j].Name })
	return in
}
