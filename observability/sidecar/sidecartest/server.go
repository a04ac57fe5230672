// Package sidecartest is a stateful MCP server for the sidecar's tests and
// benchmarks, in the shape of a Thoughtbox-style server: a gateway tool
// whose "operation" property is an enum, stage-gated per MCP session; a tool
// that reports progress while it runs (so its answer comes back as SSE); a
// tool that pushes a notification to the session's GET stream after it
// returns; a resource, a resource template and a prompt. Its answers are
// deterministic for a given sequence of requests, so that a run through the
// proxy can be compared byte for byte with a direct run.
package sidecartest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Names of what the server offers.
const (
	GatewayTool  = "thoughtbox_gateway"
	ProgressTool = "progress_steps"
	NotifyTool   = "notify_later"
	ResourceURI  = "test://greeting"
	TemplateURI  = "test://items/{id}"
	PromptName   = "greet"
	Path         = "/mcp"
)

// Operations is the enum of the gateway's operation property (the
// Thoughtbox list); start_new, cipher, thought and get_state are served, the
// others answer a tool error.
var Operations = []string{
	"get_state", "list_sessions", "navigate", "load_context", "start_new", "list_roots", "bind_root",
	"cipher", "thought", "read_thoughts", "get_structure", "notebook", "session", "mental_models",
	"deep_analysis", "knowledge",
}

// Server is the test MCP server.
type Server struct {
	MCP *server.MCPServer

	mu       sync.Mutex
	stages   map[string]int // MCP session → stage (0 none, 1 started, 2 cipher loaded)
	thoughts map[string]int // MCP session → thoughts so far
}

// New returns a server with everything registered.
func New() *Server {
	s := &Server{stages: map[string]int{}, thoughts: map[string]int{}}
	s.MCP = server.NewMCPServer("sidecartest", "1.0.0",
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(false, true),
		server.WithPromptCapabilities(true),
		server.WithLogging(),
	)
	s.MCP.AddTool(mcp.NewTool(GatewayTool,
		mcp.WithDescription("Stage-gated gateway."),
		mcp.WithString("operation", mcp.Required(), mcp.Enum(Operations...)),
		mcp.WithObject("args"),
	), s.gateway)
	s.MCP.AddTool(mcp.NewTool(ProgressTool,
		mcp.WithDescription("Reports progress steps, then answers."),
		mcp.WithNumber("steps"),
	), s.progress)
	s.MCP.AddTool(mcp.NewTool(NotifyTool,
		mcp.WithDescription("Answers, then pushes a log message to the session's GET stream."),
		mcp.WithNumber("delay_ms"),
	), s.notifyLater)
	s.MCP.AddResource(mcp.NewResource(ResourceURI, "greeting", mcp.WithMIMEType("text/plain")),
		func(_ context.Context, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: r.Params.URI, MIMEType: "text/plain", Text: "hello"}}, nil
		})
	s.MCP.AddResourceTemplate(mcp.NewResourceTemplate(TemplateURI, "item"),
		func(_ context.Context, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: r.Params.URI, MIMEType: "text/plain", Text: "item"}}, nil
		})
	s.MCP.AddPrompt(mcp.NewPrompt(PromptName, mcp.WithArgument("name")),
		func(_ context.Context, r mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("greeting", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Say hello to "+r.Params.Arguments["name"])),
			}), nil
		})
	return s
}

// Handler serves the server over Streamable HTTP, stateful (unknown
// session ids get 404), on Path.
func (s *Server) Handler(opts ...server.StreamableHTTPOption) http.Handler {
	opts = append([]server.StreamableHTTPOption{server.WithStateful(true)}, opts...)
	mux := http.NewServeMux()
	mux.Handle(Path, server.NewStreamableHTTPServer(s.MCP, opts...))
	return mux
}

func sessionID(ctx context.Context) string {
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		return cs.SessionID()
	}
	return ""
}

func stageError(current, required int, suggestion string) *mcp.CallToolResult {
	b, _ := json.Marshal(map[string]any{
		"error":         "operation not available in the current stage",
		"currentStage":  current,
		"requiredStage": required,
		"suggestion":    suggestion,
	})
	return mcp.NewToolResultError(string(b))
}

func (s *Server) gateway(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	sid := sessionID(ctx)
	op := r.GetString("operation", "")
	s.mu.Lock()
	defer s.mu.Unlock()
	stage := s.stages[sid]
	switch op {
	case "start_new":
		s.stages[sid] = max(stage, 1)
		return mcp.NewToolResultText(`{"started":true}`), nil
	case "cipher":
		if stage < 1 {
			return stageError(stage, 1, "call start_new first"), nil
		}
		s.stages[sid] = 2
		return mcp.NewToolResultText(`{"cipher":"loaded"}`), nil
	case "thought":
		if stage < 2 {
			return stageError(stage, 2, "call cipher first"), nil
		}
		args, _ := r.GetArguments()["args"].(map[string]any)
		if t, _ := args["thought"].(string); t == "" {
			return mcp.NewToolResultError(`{"error":"thought is required"}`), nil
		}
		s.thoughts[sid]++
		return mcp.NewToolResultText(fmt.Sprintf(`{"thoughtNumber":%d,"sessionId":"reasoning-1"}`, s.thoughts[sid])), nil
	case "get_state":
		return mcp.NewToolResultText(fmt.Sprintf(`{"stage":%d,"thoughts":%d}`, stage, s.thoughts[sid])), nil
	}
	return mcp.NewToolResultError(`{"error":"operation not served by the test server"}`), nil
}

func (s *Server) progress(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	steps := r.GetInt("steps", 3)
	var token any
	if r.Params.Meta != nil {
		token = r.Params.Meta.ProgressToken
	}
	// mcp-go's forwarder can drop a notification it dequeued if the request
	// finishes before it writes it (it then finds the request done); pacing
	// the notifications keeps this server's answers deterministic.
	for i := 1; i <= steps; i++ {
		time.Sleep(2 * time.Millisecond)
		if token != nil {
			_ = s.MCP.SendNotificationToClient(ctx, "notifications/progress",
				map[string]any{"progressToken": token, "progress": i, "total": steps})
		} else {
			_ = s.MCP.SendNotificationToClient(ctx, "notifications/message",
				map[string]any{"level": "info", "data": fmt.Sprintf("step %d of %d", i, steps)})
		}
	}
	time.Sleep(2 * time.Millisecond)
	return mcp.NewToolResultText(fmt.Sprintf("done %d steps", steps)), nil
}

func (s *Server) notifyLater(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	sid := sessionID(ctx)
	delay := time.Duration(r.GetInt("delay_ms", 50)) * time.Millisecond
	go func() {
		time.Sleep(delay)
		_ = s.MCP.SendNotificationToSpecificClient(sid, "notifications/message",
			map[string]any{"level": "info", "data": "later"})
	}()
	return mcp.NewToolResultText("scheduled"), nil
}
