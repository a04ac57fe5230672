// Package notifycheck counts the notifications a Thoughtbox server sends an
// MCP client during gateway calls, for tests that require every one of them
// to arrive (directly, through a proxy, over stdio).
package notifycheck

import (
	"context"
	"fmt"
	"maps"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// PerCall is how many notifications each call of Run asks for: one
// notifications/progress (the call carries a progress token) and one
// notifications/message (the session's log level is info).
const PerCall = 2

// Tally is what a client received.
type Tally struct {
	// Progress counts notifications/progress per progress token (the call's
	// index); Messages counts notifications/message from the gateway's
	// logger; Other counts any other notification.
	Progress map[int]int
	Messages int
	Other    int
	// Late counts notifications that arrived after their call had returned.
	Late int
}

// Missing describes what is not exactly one progress and one log message
// per call out of calls, or "" when the tally is complete.
func (t Tally) Missing(calls int) string {
	missing, doubled := 0, 0
	for i := range calls {
		switch n := t.Progress[i]; {
		case n == 0:
			missing++
		case n > 1:
			doubled++
		}
	}
	if missing == 0 && doubled == 0 && t.Messages == calls && t.Late == 0 && t.Other == 0 {
		return ""
	}
	return fmt.Sprintf("of %d notifications (%d calls x %d): progress missing for %d calls, repeated for %d; %d of %d log messages; %d after their call returned; %d others",
		calls*PerCall, calls, PerCall, missing, doubled, t.Messages, calls, t.Late, t.Other)
}

// Run sets the session's log level to info, brings it to stage
// cipher_loaded and makes calls thought calls on c, each with its index as
// progress token, and returns the notifications received. c must be
// initialized and used by nothing else meanwhile.
func Run(ctx context.Context, c *client.Client, calls int) (Tally, error) {
	t := Tally{Progress: make(map[int]int, calls)}
	var mu sync.Mutex
	current := -1 // the call in flight
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		mu.Lock()
		defer mu.Unlock()
		switch n.Method {
		case "notifications/progress":
			tok, ok := n.Params.AdditionalFields["progressToken"].(float64)
			if !ok || int(tok) != current {
				t.Late++
				return
			}
			t.Progress[int(tok)]++
		case "notifications/message":
			if n.Params.AdditionalFields["logger"] != "thoughtbox_gateway" {
				t.Other++
				return
			}
			if current < 0 {
				t.Late++
				return
			}
			t.Messages++
		default:
			t.Other++
		}
	})
	if err := c.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelInfo}}); err != nil {
		return t, fmt.Errorf("logging/setLevel: %w", err)
	}
	for _, op := range []map[string]any{
		{"operation": "start_new", "args": map[string]any{"newWork": map[string]any{"project": "notifications"}}},
		{"operation": "cipher"},
	} {
		if err := call(ctx, c, op, nil); err != nil {
			return t, err
		}
	}
	mu.Lock()
	t = Tally{Progress: make(map[int]int, calls)} // the set-up calls' messages are not counted
	mu.Unlock()
	for i := range calls {
		mu.Lock()
		current = i
		mu.Unlock()
		args := map[string]any{"operation": "thought", "args": map[string]any{
			"thought": fmt.Sprintf("Step %d of the notification count.", i), "nextThoughtNeeded": true}}
		if err := call(ctx, c, args, i); err != nil {
			return t, fmt.Errorf("call %d: %w", i, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	current = -1
	out := t // a copy: notifications arriving later change t, not out
	out.Progress = maps.Clone(t.Progress)
	return out, nil
}

func call(ctx context.Context, c *client.Client, arguments map[string]any, token mcp.ProgressToken) error {
	req := mcp.CallToolRequest{}
	req.Params.Name = "thoughtbox_gateway"
	req.Params.Arguments = arguments
	if token != nil {
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
	}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("%v refused: %v", arguments["operation"], res.Content)
	}
	return nil
}
