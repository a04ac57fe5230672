package suitefixtures

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"
)

// The notifying fixtures send notifications while they run: log messages
// and progress. Every notification goes through the Notifier, so that it
// travels on the request's own stream ahead of the answer.

// loggerName is the logger of the fixtures' log messages.
const loggerName = "conformance-fixtures"

// notifyPause is the pause between a fixture's notifications: the suite
// checks that several arrive while a tool runs.
const notifyPause = 50 * time.Millisecond

// addNotifyingTools registers test_tool_with_logging,
// test_tool_with_progress and test_logging_tool.
func (f *fixtures) addNotifyingTools() {
	f.mcp.AddTool(mcp.NewTool("test_tool_with_logging",
		mcp.WithDescription("Conformance fixture: logs three info messages while it runs, 50 ms apart.")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 && !pause(ctx, notifyPause) {
					return nil, ctx.Err()
				}
				if err := f.log(ctx, mcp.LoggingLevelInfo, msg); err != nil {
					return nil, err
				}
			}
			return textResult("Tool with logging executed successfully: 3 log messages sent."), nil
		})
	f.mcp.AddTool(mcp.NewTool("test_tool_with_progress",
		mcp.WithDescription("Conformance fixture: reports progress 0, 50 and 100 of 100 when the request carries a progressToken.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var token mcp.ProgressToken
			if req.Params.Meta != nil {
				token = req.Params.Meta.ProgressToken
			}
			for i, p := range []int{0, 50, 100} {
				if i > 0 && !pause(ctx, notifyPause) {
					return nil, ctx.Err()
				}
				if token == nil {
					continue
				}
				err := f.notify(ctx, string(mcp.MethodNotificationProgress), map[string]any{
					"progressToken": token, "progress": p, "total": 100, "message": fmt.Sprintf("step %d of 3", i+1)})
				if err != nil {
					return nil, err
				}
			}
			return textResult("Progress tool finished: reported 0, 50 and 100 of 100."), nil
		})
	// test_logging_tool is server-stateless's probe that a 2026-era request
	// without _meta logLevel gets no log message: it tries to log, and the
	// gate keeps the message back.
	f.mcp.AddTool(mcp.NewTool("test_logging_tool",
		mcp.WithDescription("Conformance fixture: tries to log at every severity; only what the request's log level admits is sent.")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			sent := 0
			for _, level := range []mcp.LoggingLevel{mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelWarning, mcp.LoggingLevelError} {
				if !logWanted(ctx, level) {
					continue
				}
				if err := f.log(ctx, level, "test_logging_tool message at "+string(level)); err != nil {
					return nil, err
				}
				sent++
			}
			return textResult(fmt.Sprintf("Logging tool finished: %d log message(s) admitted by the request's log level.", sent)), nil
		})
}

// log sends a log message at level, when the client asked for that level:
// in the 2026 era by the request's _meta logLevel (no level, no message), in
// the 2025 era by the session's logging/setLevel.
func (f *fixtures) log(ctx context.Context, level mcp.LoggingLevel, data string) error {
	if !logWanted(ctx, level) {
		return nil
	}
	return f.notify(ctx, string(mcp.MethodNotificationMessage), map[string]any{"level": level, "logger": loggerName, "data": data})
}

// logWanted reports whether the client of ctx admits a log message at level.
func logWanted(ctx context.Context, level mcp.LoggingLevel) bool {
	if info := mcpsrv.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return info.LogLevel != "" && level.ShouldSendTo(info.LogLevel)
	}
	l, ok := mcpsrv.ClientSessionFromContext(ctx).(mcpsrv.SessionWithLogging)
	return ok && level.ShouldSendTo(l.GetLogLevel())
}

// pause waits d, or less when ctx ends first; it reports whether it waited
// the whole time.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
