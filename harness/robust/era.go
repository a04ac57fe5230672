package robust

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// pendingInput is the sampling request the 2026 era's set-up leaves open:
// a thought on the main connection asking for a critique, answered with
// input_required. The requestState inputs are retries of that thought.
type pendingInput struct {
	state string // the requestState the target issued ("" for none)
	key   string // the key of its sampling request in inputRequests
	why   string // why there is none
}

// samplingAnswer answers a sampling request in inputResponses.
var samplingAnswer = map[string]any{"role": "assistant", "model": target.SamplingModel, "stopReason": "endTurn",
	"content": map[string]any{"type": "text", "text": "Critique from the harness: the step assumes what it should show."}}

// inputKey is the key inputResponses answer under: the open request's, or
// "critique" when there is none.
func (p pendingInput) inputKey() string {
	if p.key != "" {
		return p.key
	}
	return "critique"
}

// make returns the requestState an input of kind k carries.
func (p pendingInput) make(k StateKind) string {
	switch k {
	case StateTampered:
		return tamper(p.state)
	case StateTruncated:
		return p.state[:len(p.state)/2]
	case StateGarbage:
		return "not-a-requestState-the-server-issued"
	}
	return p.state
}

// tamper changes one character of a token, near its end (where a signed
// token keeps its signature) but not the last one (whose low bits base64
// may leave unused), to another of the same alphabet: a letter's case is
// swapped, a digit moved on, anything else made a letter.
func tamper(s string) string {
	if s == "" {
		return "x"
	}
	b := []byte(s)
	i := len(b) - 10
	if i < 0 {
		i = len(b) / 2
	}
	for i > 0 && !isAlnum(b[i]) {
		i--
	}
	switch c := b[i]; {
	case c >= 'a' && c <= 'z':
		b[i] = c - 'a' + 'A'
	case c >= 'A' && c <= 'Z':
		b[i] = c - 'A' + 'a'
	case c >= '0' && c <= '9':
		b[i] = '0' + (c-'0'+5)%10
	default:
		b[i] = 'Q'
	}
	return string(b)
}

func isAlnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// openCritique records the 2026 era's extra set-up: a thought on the main
// connection asking for a critique, from a request that declares sampling
// (the connection declares none, so that it answers nothing itself), sent
// once and never retried. Its input_required answer's requestState is kept
// for the requestState inputs; a target that asks for nothing leaves them
// not applicable.
func (r *runner) openCritique(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, r.o.CritiqueTimeout+r.o.Timeout)
	defer cancel()
	main := r.conns[ConnMain]
	args := inContext(gateway(`"thought"`, critiqueThought), main.ContextID())
	params := map[string]any{"name": gatewayTool, "arguments": args,
		"_meta": map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{"sampling": map[string]any{}}}}
	raw, err := main.Request(ctx, "tools/call", params)
	if err != nil {
		return fmt.Errorf("setting up (main thought asking for a critique): %w", err)
	}
	var res struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
		IsError       bool                       `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("setting up (main thought asking for a critique): %w", err)
	}
	if res.IsError {
		tr, _ := target.ParseToolResult(raw)
		return fmt.Errorf("setting up (main thought asking for a critique): %s", firstLine(tr.Text()))
	}
	if res.ResultType != string(mcp.ResultTypeInputRequired) || res.RequestState == "" {
		r.pending.why = fmt.Sprintf("the target answered a thought asking for a critique, from a client that declares sampling, with resultType %q and no requestState: it asks the client for nothing", res.ResultType)
		return nil
	}
	for k, v := range res.InputRequests {
		var req struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(v, &req) == nil && req.Method == string(mcp.MethodSamplingCreateMessage) {
			r.pending.key = k
		}
	}
	if r.pending.key == "" {
		r.pending.why = "the target's input_required answer to a thought asking for a critique holds no sampling request"
		return nil
	}
	r.pending.state = res.RequestState
	r.rec.Notef("robustness: the set-up's critique left requestState %.40q… open under input key %q", strings.TrimSpace(res.RequestState), r.pending.key)
	return nil
}
