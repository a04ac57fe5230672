package profile

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// GatewayTool is the one reasoning tool of the gateway family.
const GatewayTool = "thoughtbox_gateway"

// Gateway is the family of thoughtbox_gateway: every domain operation is
// the gateway operation of the same name; Begin is start_new then cipher.
var Gateway Profile = gateway{}

type gateway struct{}

func (gateway) Name() string      { return "gateway" }
func (gateway) Tools() []string   { return []string{GatewayTool} }
func (gateway) Open(c Caller) Ops { return gatewayOps{c} }

// Supports: every operation is the gateway's.
func (gateway) Supports(string) bool { return true }

type gatewayOps struct{ c Caller }

func (g gatewayOps) Do(ctx context.Context, op string, args any) (target.ToolResult, error) {
	if op == ReadBack {
		return g.readBack(ctx, args)
	}
	if op != Begin {
		return g.c.Gateway(ctx, op, args)
	}
	m, _ := args.(map[string]any)
	res, err := g.c.Gateway(ctx, "start_new", map[string]any{"newWork": map[string]any{"project": m["project"], "task": m["task"]}})
	if err != nil || res.IsError {
		return res, wrapBegin("start_new", err)
	}
	res, err = g.c.Gateway(ctx, "cipher", nil)
	return res, wrapBegin("cipher", err)
}

func wrapBegin(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}

// readBack is load_context and cipher on the session, then read_thoughts of
// each chain: the main chain's range 1 … n, a branch by id.
func (g gatewayOps) readBack(ctx context.Context, args any) (target.ToolResult, error) {
	m, err := argMap(args)
	if err != nil {
		return target.ToolResult{}, err
	}
	id := m["sessionId"]
	for _, op := range []string{"load_context", "cipher"} {
		res, err := g.c.Gateway(ctx, op, map[string]any{"sessionId": id})
		if err != nil || res.IsError {
			return res, wrapBegin(op, err)
		}
	}
	chains, _ := m["chains"].(map[string]any)
	out := ReadBackAnswer{Chains: map[string][]ChainThought{}}
	for chain, last := range chains {
		a := map[string]any{"sessionId": id}
		if chain == "" {
			a["range"] = []any{1, last}
		} else {
			a["branchId"] = chain
		}
		res, err := g.c.Gateway(ctx, "read_thoughts", a)
		if err != nil || res.IsError {
			return res, wrapBegin("read_thoughts", err)
		}
		var got struct {
			Thoughts []ChainThought `json:"thoughts"`
		}
		if err := json.Unmarshal([]byte(res.Text()), &got); err != nil {
			return res, fmt.Errorf("read_thoughts answer is not JSON: %w", err)
		}
		out.Chains[chain] = got.Thoughts
	}
	return jsonResult(out)
}

// jsonResult is a successful answer whose text is v as JSON.
func jsonResult(v any) (target.ToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return target.ToolResult{}, err
	}
	return target.ToolResult{Blocks: []target.Block{{Type: "text", Text: string(b)}}}, nil
}
