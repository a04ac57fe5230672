package sidecar

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// clientCounts is what clients count themselves, keyed like Counts.
type clientCounts struct {
	mu       sync.Mutex
	requests map[MethodStatus]int64
	tools    map[ToolCall]int64
}

func (c *clientCounts) add(method, status string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests[MethodStatus{method, status}]++
}

func (c *clientCounts) tool(tool, op, status string) {
	c.add("tools/call", status)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tools[ToolCall{tool, op, status}]++
}

// TestCountsMatchClients drives 8 parallel sessions and compares the
// proxy's counts with the clients' own, per method and status and per
// tool, operation and status.
func TestCountsMatchClients(t *testing.T) {
	up := startUpstream(t)
	p, px := startProxy(t, up.URL, nil)
	want := &clientCounts{requests: map[MethodStatus]int64{}, tools: map[ToolCall]int64{}}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			c := newClient(t, px.URL)
			want.add("initialize", outcome.OK)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
				t.Error(err)
				return
			}
			want.add("tools/list", outcome.OK)
			call := func(tool, op string, args map[string]any) {
				req := mcp.CallToolRequest{}
				req.Params.Name = tool
				a := map[string]any{}
				if op != None {
					a["operation"] = op
				}
				if args != nil {
					a["args"] = args
				}
				req.Params.Arguments = a
				res, err := c.CallTool(ctx, req)
				switch {
				case err != nil:
					want.tool(Other, None, outcome.Error)
				case res.IsError:
					want.tool(tool, op, outcome.ToolError)
				default:
					want.tool(tool, op, outcome.OK)
				}
			}
			call(sidecartest.GatewayTool, "cipher", nil) // stage error
			call(sidecartest.GatewayTool, "start_new", map[string]any{"newWork": map[string]any{"project": "p"}})
			call(sidecartest.GatewayTool, "cipher", nil)
			for j := range 5 {
				call(sidecartest.GatewayTool, "thought", map[string]any{"thought": fmt.Sprint("t", i, j), "nextThoughtNeeded": true})
			}
			call(sidecartest.ProgressTool, None, nil)
			call("no_such_tool", None, nil)
			if err := c.Ping(ctx); err != nil {
				t.Error(err)
			}
			want.add("ping", outcome.OK)
		})
	}
	wg.Wait()
	got := p.Counts()
	if fmt.Sprint(got.Requests) != fmt.Sprint(want.requests) {
		t.Errorf("requests:\nproxy:  %v\nclient: %v", got.Requests, want.requests)
	}
	if fmt.Sprint(got.ToolCalls) != fmt.Sprint(want.tools) {
		t.Errorf("tool calls:\nproxy:  %v\nclient: %v", got.ToolCalls, want.tools)
	}
	if n := got.Notifications[Notification{"notifications/initialized", DirectionIn}]; n != 8 {
		t.Errorf("initialized notifications %d, want 8", n)
	}
	if got.Total() != 8*13 {
		t.Errorf("total %d, want %d", got.Total(), 8*13)
	}
	if n := p.tel.state.sessions.Load(); n != 8 {
		t.Errorf("sessions active %d, want 8", n)
	}
}

// Plus adds two snapshots key by key into a new one and leaves both alone.
func TestCountsPlus(t *testing.T) {
	ok := MethodStatus{"tools/call", outcome.OK}
	thought := ToolCall{"thoughtbox_gateway", "thought", outcome.OK}
	progress := Notification{"notifications/progress", DirectionOut}
	a := Counts{Requests: map[MethodStatus]int64{ok: 2}, ToolCalls: map[ToolCall]int64{thought: 2}}
	b := newCounts()
	b.Requests[ok] = 3
	b.Requests[MethodStatus{"ping", outcome.OK}] = 1
	b.Notifications[progress] = 4

	sum := a.Plus(b)
	if sum.Requests[ok] != 5 || sum.Method("ping") != 1 || sum.Total() != 6 {
		t.Errorf("requests = %v, want tools/call 5 and ping 1", sum.Requests)
	}
	if sum.ToolCalls[thought] != 2 || sum.Notifications[progress] != 4 {
		t.Errorf("sum = %+v, want 2 thought calls and 4 progress notifications", sum)
	}
	if a.Requests[ok] != 2 || b.Requests[ok] != 3 || len(a.Notifications) != 0 {
		t.Errorf("Plus changed its operands: a = %+v, b = %+v", a, b)
	}
	if zero := (Counts{}).Plus(Counts{}); zero.Total() != 0 || zero.Requests == nil {
		t.Errorf("zero sum = %+v, want empty made maps", zero)
	}
}
