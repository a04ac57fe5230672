package mcpserver

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/server/reply"
)

// gatewayLogger is the logger name of the gateway's log notifications.
const gatewayLogger = "thoughtbox_gateway"

// reportCall tells a client that asked about a finished thoughtbox_gateway
// call: a notifications/progress when the call carried a progress token
// (for a thought, progress is its thoughtNumber out of totalThoughts; for
// other operations 1 of 1), and a notifications/message when the session's
// log level (logging/setLevel; mcp-go's default is error) admits it: info
// for a call that succeeded, warning for a refused one. A client that asked
// for neither gets nothing and pays only the two checks.
func (s *Server) reportCall(ctx context.Context, req mcp.CallToolRequest, r reply.Reply, took time.Duration) {
	var token mcp.ProgressToken
	if req.Params.Meta != nil {
		token = req.Params.Meta.ProgressToken
	}
	level := mcp.LoggingLevelInfo
	if r.IsError {
		level = mcp.LoggingLevelWarning
	}
	logged := logAdmits(ctx, level)
	if token == nil && !logged {
		return
	}
	var call struct {
		Operation string `json:"operation"`
	}
	_ = json.Unmarshal(rawArguments(req), &call)
	if token != nil {
		progress, total := thoughtProgress(call.Operation, r)
		msg := call.Operation + " done"
		n := mcp.NewProgressNotification(token, progress, &total, &msg)
		_ = s.notify(ctx, n.Method, map[string]any{"progressToken": token, "progress": n.Params.Progress,
			"total": n.Params.Total, "message": n.Params.Message})
	}
	if logged {
		data := map[string]any{"operation": call.Operation, "isError": r.IsError,
			"durationMs": float64(took.Microseconds()) / 1e3}
		_ = s.notify(ctx, "notifications/message", map[string]any{"level": level, "logger": gatewayLogger, "data": data})
	}
}

// logAdmits reports whether the session of ctx wants log messages at level.
func logAdmits(ctx context.Context, level mcp.LoggingLevel) bool {
	if info := mcpsrv.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		// 2026 era: the request's own _meta log level, none without one.
		return info.LogLevel != "" && level.ShouldSendTo(info.LogLevel)
	}
	session, ok := mcpsrv.ClientSessionFromContext(ctx).(mcpsrv.SessionWithLogging)
	return ok && level.ShouldSendTo(session.GetLogLevel())
}

// thoughtProgress is the progress a finished call reports: a recorded
// thought's number out of the total the client announced, 1 of 1 otherwise.
func thoughtProgress(operation string, r reply.Reply) (float64, float64) {
	if operation == "thought" && !r.IsError && len(r.Blocks) > 0 {
		var t struct {
			ThoughtNumber, TotalThoughts float64
		}
		if json.Unmarshal([]byte(r.Blocks[0].Text), &t) == nil && t.ThoughtNumber > 0 {
			return t.ThoughtNumber, max(t.TotalThoughts, t.ThoughtNumber)
		}
	}
	return 1, 1
}
