package profile

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// CodeModeTool runs JavaScript against Thoughtbox's tb object.
const CodeModeTool = "thoughtbox_execute"

// CodeMode is the family of Thoughtbox since March 2026
// (features/families/code-mode.md): a domain operation is a
// thoughtbox_execute call whose code is a function calling one tb method
// with the operation's arguments as a JSON object literal. Its answer is the
// envelope's "result" as JSON text; an "error" in the envelope (a refused
// call: Code Mode never sets isError for one) is an isError answer whose
// text is that error. An MCP session is one reasoning session, so Begin
// sends nothing.
var CodeMode Profile = codeMode{}

type codeMode struct{}

func (codeMode) Name() string      { return "code-mode" }
func (codeMode) Tools() []string   { return []string{CodeModeTool} }
func (codeMode) Open(c Caller) Ops { return codeModeOps{c} }

// Supports: thoughts, the session list, get and export, and the read-back.
func (codeMode) Supports(op string) bool {
	return op == Begin || op == "thought" || op == "session" || op == ReadBack
}

type codeModeOps struct{ c Caller }

func (o codeModeOps) Do(ctx context.Context, op string, args any) (target.ToolResult, error) {
	name := CodeMode.Name()
	m, err := argMap(args)
	if err != nil {
		return target.ToolResult{}, err
	}
	var call string
	switch op {
	case Begin:
		return target.ToolResult{}, nil
	case "thought":
		call, err = jsCall("tb.thought", m)
	case "session":
		switch m["operation"] {
		case "list":
			rest := map[string]any{}
			if l, ok := m["limit"]; ok {
				rest["limit"] = l
			}
			call, err = jsCall("tb.session.list", rest)
		case "get":
			call, err = jsCall("tb.session.get", map[string]any{"sessionId": m["sessionId"]})
		case "export":
			rest := map[string]any{"sessionId": m["sessionId"]}
			if f, ok := m["format"]; ok {
				rest["format"] = f
			}
			call, err = jsCall("tb.session.export", rest)
		default:
			return target.ToolResult{}, &LacksError{name, fmt.Sprintf("session operation %q", m["operation"])}
		}
	case ReadBack:
		return o.readBack(ctx, m)
	case "start_new", "cipher":
		return target.ToolResult{}, &LacksError{name, "stages (start_new, cipher)"}
	default:
		return target.ToolResult{}, &LacksError{name, fmt.Sprintf("operation %q", op)}
	}
	if err != nil {
		return target.ToolResult{}, err
	}
	res, err := o.c.CallTool(ctx, CodeModeTool, map[string]any{"code": call})
	if err != nil || res.IsError {
		return res, err
	}
	return Unwrap(res)
}

// jsCall is the code of a function that calls method with args (a JSON
// object is a JavaScript object literal) and returns its answer.
func jsCall(method string, args map[string]any) (string, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return "", fmt.Errorf("profile: arguments of %s: %w", method, err)
	}
	return "async () => " + method + "(" + string(b) + ")", nil
}

// Unwrap turns a thoughtbox_execute answer into the answer of the tb call
// it made: the envelope's "result" as JSON text, or, when the envelope has
// an "error", an isError answer with that error's text. An answer that is
// no envelope is an error.
func Unwrap(res target.ToolResult) (target.ToolResult, error) {
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *string         `json:"error"`
	}
	if err := json.Unmarshal([]byte(res.Text()), &env); err != nil {
		return res, fmt.Errorf("thoughtbox_execute answered no result envelope: %w (text: %.200q)", err, res.Text())
	}
	if env.Error != nil {
		return target.ToolResult{IsError: true, Blocks: []target.Block{{Type: "text", Text: *env.Error}}, Raw: res.Raw}, nil
	}
	if len(env.Result) == 0 {
		return res, fmt.Errorf("thoughtbox_execute answered an envelope without result or error: %.200q", res.Text())
	}
	return target.ToolResult{Blocks: []target.Block{{Type: "text", Text: string(env.Result)}}, Raw: res.Raw}, nil
}

// readBack is tb.session.get of the session: its main-chain thoughts and
// its branches' (families/code-mode.md, section 6).
func (o codeModeOps) readBack(ctx context.Context, m map[string]any) (target.ToolResult, error) {
	call, err := jsCall("tb.session.get", map[string]any{"sessionId": m["sessionId"]})
	if err != nil {
		return target.ToolResult{}, err
	}
	res, err := o.c.CallTool(ctx, CodeModeTool, map[string]any{"code": call})
	if err != nil || res.IsError {
		return res, err
	}
	if res, err = Unwrap(res); err != nil || res.IsError {
		return res, err
	}
	var got struct {
		Thoughts []ChainThought            `json:"thoughts"`
		Branches map[string][]ChainThought `json:"branches"`
	}
	if err := json.Unmarshal([]byte(res.Text()), &got); err != nil {
		return res, fmt.Errorf("tb.session.get answered no session: %w", err)
	}
	out := ReadBackAnswer{Chains: map[string][]ChainThought{"": got.Thoughts}}
	chains, _ := m["chains"].(map[string]any)
	for chain := range chains {
		if chain != "" {
			out.Chains[chain] = got.Branches[chain]
		}
	}
	return jsonResult(out)
}
