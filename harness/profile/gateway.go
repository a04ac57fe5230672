package profile

import (
	"context"
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
