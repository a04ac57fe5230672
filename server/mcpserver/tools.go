package mcpserver

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/content"
	"github.com/thoughtbox-bench/tbbench/server/gateway"
	"github.com/thoughtbox-bench/tbbench/server/obsgateway"
	"github.com/thoughtbox-bench/tbbench/server/reply"
	"github.com/thoughtbox-bench/tbbench/server/tasks"
)

// gatewaySchema is the input schema of thoughtbox_gateway, as in 1.2.2,
// with the operation enum taken from the gateway's operation table.
var gatewaySchema = `{"type":"object","properties":{"operation":{"type":"string","enum":` + mustJSON(gateway.Operations) +
	`},"args":{"type":"object","additionalProperties":{},"description":"Arguments passed to the underlying handler"}},"required":["operation"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// observabilitySchema is the input schema of observability_gateway, as in 1.2.2.
const observabilitySchema = `{"type":"object","properties":{"operation":{"type":"string","enum":["health","metrics","metrics_range","sessions","session_info","alerts","dashboard_url"]},"args":{"type":"object","properties":{"query":{"type":"string"},"time":{"type":"string"},"start":{"type":"string"},"end":{"type":"string"},"step":{"type":"string"},"sessionId":{"type":"string"},"limit":{"type":"number"},"status":{"type":"string","enum":["active","idle","all"]},"services":{"type":"array","items":{"type":"string"}},"state":{"type":"string","enum":["firing","pending","all"]},"dashboard":{"type":"string"}},"additionalProperties":false}},"required":["operation"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`

// ObservabilityOperations lists observability_gateway's operations.
var ObservabilityOperations = obsgateway.Operations

func boolPtr(b bool) *bool { return &b }

// gatewayToolName is the name of Thoughtbox's tool.
const gatewayToolName = "thoughtbox_gateway"

func gatewayTool() mcp.Tool {
	t := mcp.NewToolWithRawSchema(gatewayToolName, content.GatewayDescription, json.RawMessage(gatewaySchema))
	t.Annotations = mcp.ToolAnnotation{ReadOnlyHint: boolPtr(false), DestructiveHint: boolPtr(false), IdempotentHint: boolPtr(false)}
	t.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportForbidden}
	return t
}

// modernSchema is a 1.2.2 input schema as the 2026 era lists it: in the
// default dialect of MCP tool schemas (JSON Schema 2020-12, so without the
// draft-07 $schema), with extra properties added.
func modernSchema(schema string, extra map[string]any) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal([]byte(schema), &m); err != nil {
		panic(err)
	}
	delete(m, "$schema")
	props, _ := m["properties"].(map[string]any)
	for k, v := range extra {
		props[k] = v
	}
	return json.RawMessage(mustJSON(m))
}

// modernTools are the two tools as a 2026-era tools/list shows them:
// thoughtbox_gateway takes the contextId of spec D26 beside operation and
// args.
var modernTools = func() map[string]mcp.Tool {
	g := gatewayTool()
	// deep_analysis, run_cell and install_deps may run as tasks.
	g.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	g.RawInputSchema = modernSchema(gatewaySchema, map[string]any{ContextIDArg: map[string]any{
		"type":        "string",
		"description": "The context returned by start_new or load_context: the stage, current reasoning session and bound root this call continues. Leave it out on start_new and load_context to get a new one.",
	}})
	o := observabilityTool()
	o.RawInputSchema = modernSchema(observabilitySchema, nil)
	return map[string]mcp.Tool{g.Name: g, o.Name: o}
}()

// eraTools is the tool filter that shows 2026-era requests the modern
// tools; 2025-era requests see the tools as 1.2.2 listed them.
func eraTools(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	if !mcpsrv.IsModernRequest(ctx) {
		return tools
	}
	out := make([]mcp.Tool, len(tools))
	for i, t := range tools {
		if m, ok := modernTools[t.Name]; ok {
			t = m
		}
		out[i] = tasks.AsListed(t)
	}
	return out
}

func observabilityTool() mcp.Tool {
	t := mcp.NewToolWithRawSchema("observability_gateway", content.ObservabilityDescription, json.RawMessage(observabilitySchema))
	t.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportForbidden}
	return t
}

// toResult converts a gateway reply into an MCP tool result.
func toResult(r reply.Reply) *mcp.CallToolResult {
	res := &mcp.CallToolResult{IsError: r.IsError, Content: make([]mcp.Content, 0, len(r.Blocks))}
	for _, b := range r.Blocks {
		switch b.Kind {
		case reply.Text:
			res.Content = append(res.Content, mcp.NewTextContent(b.Text))
		case reply.Resource:
			res.Content = append(res.Content, mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: b.URI, MIMEType: b.MIMEType, Text: b.Text}))
		case reply.ResourceLink:
			res.Content = append(res.Content, mcp.NewResourceLink(b.URI, b.Name, b.Description, b.MIMEType))
		}
	}
	return res
}

// rawArguments returns the tool call's arguments as JSON.
func rawArguments(req mcp.CallToolRequest) json.RawMessage {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments
	}
	if req.Params.Arguments == nil {
		return nil
	}
	b, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return nil
	}
	return b
}

// gatewayHandler routes a thoughtbox_gateway call to the connection's state.
// In the 2026 era the call runs in the context its contextId names
// (contexts.go); in the 2025 era the MCP session is the context, and a
// contextId argument must be the session's own.
func (s *Server) gatewayHandler(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw := rawArguments(req)
	start := time.Now()
	if mcpsrv.IsModernRequest(ctx) {
		res, err := s.modernGatewayCall(ctx, req, raw)
		if res != nil {
			// The report reads the answer's first text (a thought's number
			// for its progress).
			r := reply.Reply{IsError: res.IsError}
			if len(res.Content) > 0 {
				if t, ok := res.Content[0].(mcp.TextContent); ok {
					r.Blocks = []reply.Block{{Kind: reply.Text, Text: t.Text}}
				}
			}
			s.reportCall(ctx, req, r, time.Since(start))
		}
		return res, err
	}
	conn := s.conn(ctx)
	var r reply.Reply
	if id, named, err := contextArg(raw); err != nil {
		r = reply.Error(err.Error())
	} else if session := mcpsrv.ClientSessionFromContext(ctx); named && (session == nil || id != session.SessionID()) {
		r = reply.ErrorJSON(contextError{
			Error:      "contextId '" + clip.String(id) + "' is not this MCP session's: in protocol version " + mcp.ProtocolVersion20251125 + " and earlier the MCP session is the context",
			ContextID:  clip.String(id),
			Suggestion: "Leave contextId out, or pass the Mcp-Session-Id of this session.",
		})
	} else {
		r = s.gateway.Call(ctx, conn, raw)
	}
	s.reportCall(ctx, req, r, time.Since(start))
	return toResult(r), nil
}

// conn returns the gateway state of the MCP connection the request came in
// on: a 2025-era session's own, or a new one.
func (s *Server) conn(ctx context.Context) *gateway.Conn {
	session := mcpsrv.ClientSessionFromContext(ctx)
	if c, ok := session.(*clientSession); ok && c.conn != nil {
		return c.conn
	}
	return s.newConn(session)
}
