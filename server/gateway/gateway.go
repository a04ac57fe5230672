package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"unicode/utf8"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/content"
	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/reply"
	"github.com/thoughtbox-bench/tbbench/server/sessions"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// Handler runs one operation for a connection. args is the raw "args"
// object of the call, or nil when the call had none.
type Handler func(ctx context.Context, c *Conn, args json.RawMessage) reply.Reply

type operation struct {
	required Stage
	// advances is the stage a successful call moves the connection to
	// (Entry for none).
	advances Stage
	run      Handler
}

// Gateway routes thoughtbox_gateway calls to operations.
type Gateway struct {
	store    storage.Store
	sessions *sessions.Host
	ops      map[string]operation
}

// New returns a gateway over store: every operation of Table, with the
// built-in handlers, those given by options, and a "not available" answer
// for the rest.
func New(store storage.Store, sessionHost *sessions.Host, opts ...Option) *Gateway {
	g := &Gateway{store: store, sessions: sessionHost, ops: map[string]operation{}}
	builtin := map[string]Handler{
		"get_state":     g.getState,
		"list_sessions": g.listSessions,
		"navigate":      g.navigate,
		"load_context":  g.loadContext,
		"start_new":     g.startNew,
		"cipher":        cipher,
		"thought": func(ctx context.Context, c *Conn, args json.RawMessage) reply.Reply {
			return c.Ledger.Thought(ctx, args)
		},
		"read_thoughts": func(_ context.Context, c *Conn, args json.RawMessage) reply.Reply {
			return c.Ledger.ReadThoughts(args)
		},
		"get_structure": func(_ context.Context, c *Conn, args json.RawMessage) reply.Reply {
			return c.Ledger.GetStructure(args)
		},
		"session": func(ctx context.Context, c *Conn, args json.RawMessage) reply.Reply {
			return g.sessions.Call(ctx, c.Ledger, args)
		},
	}
	for _, op := range Table {
		run, ok := builtin[op.Name]
		if !ok {
			run = unavailable(op.Name)
		}
		g.ops[op.Name] = operation{required: op.Required, advances: op.Advances, run: run}
	}
	for _, o := range opts {
		o(g)
	}
	return g
}

type invalidCall struct {
	Error           string   `json:"error"`
	ValidOperations []string `json:"validOperations,omitempty"`
}

type notAvailable struct {
	Error     string `json:"error"`
	Operation string `json:"operation"`
	Code      string `json:"code"`
}

func unavailable(name string) Handler {
	return func(context.Context, *Conn, json.RawMessage) reply.Reply {
		return reply.ErrorJSON(notAvailable{Error: "Operation '" + name + "' is not available in this build of the server",
			Operation: name, Code: "INVALID_OPERATION"})
	}
}

// Call runs one thoughtbox_gateway call: raw is the tool's arguments object,
// valid JSON (as a decoder's RawMessage is, or a member of a body the caller
// checked) or empty; it is not checked again. The stage is checked before
// anything else about the call's args; a successful load_context, start_new
// or cipher advances the stage.
func (g *Gateway) Call(ctx context.Context, c *Conn, raw json.RawMessage) reply.Reply {
	call, ok := splitCall(raw)
	if !ok {
		if err := json.Unmarshal(raw, &call); err != nil || len(bytes.TrimSpace(raw)) == 0 {
			return reply.ErrorJSON(invalidCall{Error: "Arguments must be a JSON object with an 'operation' field", ValidOperations: Operations})
		}
	}
	if call.Operation == nil {
		return reply.ErrorJSON(invalidCall{Error: "Missing required argument: operation", ValidOperations: Operations})
	}
	name := *call.Operation
	op, ok := g.ops[name]
	if !ok {
		return reply.ErrorJSON(invalidCall{Error: "Unknown operation '" + clip.String(name) + "'", ValidOperations: Operations})
	}
	if current := c.Stage(); current < op.required {
		return reply.ErrorJSON(newStageError(name, current, op.required))
	}
	args := bytes.TrimSpace(call.Args)
	if string(args) == "null" {
		args = nil
	}
	if len(args) > 0 && args[0] != '{' {
		return reply.ErrorJSON(invalidCall{Error: "args must be a JSON object"})
	}
	r := op.run(ctx, c, args)
	if !r.IsError && op.advances != Entry {
		c.advanceAndReport(name, op.advances)
	}
	return r
}

// gatewayCall is the decoded arguments object of a thoughtbox_gateway call.
type gatewayCall struct {
	Operation *string         `json:"operation"`
	Args      json.RawMessage `json:"args"`
}

// splitCall decodes the usual arguments object, {"operation": "<name>",
// "args": {...}}, without reflection; Args aliases raw. It reports false for
// anything it is not sure encoding/json would decode the same way (a key
// matching a field only case-insensitively, an operation that is not a plain
// string), and the caller then uses encoding/json. raw is valid JSON or
// empty (Call's arguments are), so it is not checked again.
func splitCall(raw []byte) (gatewayCall, bool) {
	var call gatewayCall
	var buf [8]jsonx.Member
	members, ok := jsonx.AppendMembersOfValid(buf[:0], raw)
	if !ok {
		return call, false
	}
	for _, m := range members {
		switch string(m.Key) {
		case "operation":
			v := m.Value
			switch {
			case string(v) == "null":
				call.Operation = nil
			case len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v):
				op := string(v[1 : len(v)-1])
				call.Operation = &op
			default:
				return call, false
			}
		case "args":
			call.Args = m.Value
		default:
			if bytes.EqualFold(m.Key, []byte("operation")) || bytes.EqualFold(m.Key, []byte("args")) {
				return call, false
			}
		}
	}
	return call, true
}

// cipher returns the notation, the next steps and the stage-2 reference.
func cipher(context.Context, *Conn, json.RawMessage) reply.Reply {
	return reply.PlainText(cipherText)
}

// cipherText is cipher's answer, the same on every call: put together once
// instead of 15 KB on each.
var cipherText = content.Cipher + "\n\n---\n\n" + content.CipherNextSteps + "\n\n---\n\n" + content.Stage2Operations
