package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/tasks"
)

// The tasks extension (SEP-2663) on the 2026 era's wire. mcp-go implements
// the older, client-directed tasks of 2025-11-25 (a task param on
// tools/call, tasks/result, tasks/list), so the transport serves the
// extension's methods itself: tasks/get, tasks/update and tasks/cancel are
// answered here from the task table; tasks/result and tasks/list, removed,
// are -32601; a tools/call keeps no task param; and the answer of a call
// that became a task (tasks.Start) is sent as a CreateTaskResult.

// Task timing: how long a task stays readable, and the poll interval
// clients are told.
const (
	taskTTL  = time.Hour
	taskPoll = 500 * time.Millisecond
)

// taskOptions advertise the extension.
func taskOptions() []mcpsrv.ServerOption {
	return []mcpsrv.ServerOption{mcpsrv.WithExtensions(map[string]any{tasks.Extension: map[string]any{}})}
}

// taskRequest answers a 2026-era request that belongs to the tasks
// extension rather than to mcp-go: it reports false for anything else.
// header reads the HTTP request's headers (nil over stdio).
func (s *Server) taskRequest(env envelope, header http.Header) (answer any, status int, handled bool) {
	method := env.method()
	switch method {
	case "tasks/get", "tasks/update", "tasks/cancel", "tasks/result", "tasks/list":
	default:
		return nil, 0, false
	}
	var id any
	_ = json.Unmarshal(env.ID, &id)
	fail := func(code int, msg string, data any) (any, int, bool) {
		e := mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id),
			Error: mcp.JSONRPCErrorDetails{Code: code, Message: msg, Data: data}}
		return e, statusFor(code), true
	}
	var params struct {
		Meta           *mcp.Meta          `json:"_meta"`
		TaskID         *string            `json:"taskId"`
		InputResponses mcp.InputResponses `json:"inputResponses"`
	}
	if err := json.Unmarshal(env.Params, &params); len(env.Params) > 0 && err != nil {
		return fail(mcp.INVALID_PARAMS, "invalid params: "+err.Error(), nil)
	}
	version := params.Meta.ProtocolVersion()
	if header != nil {
		if err := checkModernHeaders(header, version, method, params.TaskID); err != nil {
			return fail(mcp.HEADER_MISMATCH, err.Error(), nil)
		}
	}
	if method == "tasks/result" || method == "tasks/list" {
		return fail(mcp.METHOD_NOT_FOUND, "Method "+method+" not found: the tasks extension (SEP-2663) inlines results in tasks/get and has no task list", nil)
	}
	caps := params.Meta.ClientCapabilities()
	if caps == nil {
		return fail(mcp.INVALID_PARAMS, "missing or invalid _meta field "+mcp.MetaKeyClientCapabilities, nil)
	}
	if _, ok := caps.Extensions[tasks.Extension]; !ok {
		return fail(mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, method+" needs the "+tasks.Extension+" extension in the request's client capabilities",
			map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{tasks.Extension: map[string]any{}}}})
	}
	if params.TaskID == nil {
		return fail(mcp.INVALID_PARAMS, method+" needs params.taskId", nil)
	}
	var result map[string]any
	var err error
	switch method {
	case "tasks/get":
		result, err = s.tasks.Get(*params.TaskID)
	case "tasks/update":
		err = s.tasks.Update(*params.TaskID, params.InputResponses)
	case "tasks/cancel":
		err = s.tasks.Cancel(*params.TaskID)
	}
	if errors.Is(err, tasks.ErrUnknownTask) {
		return fail(mcp.INVALID_PARAMS, "Unknown taskId "+quoteClip(*params.TaskID), nil)
	}
	if result == nil {
		result = map[string]any{}
	}
	result["resultType"] = string(mcp.ResultTypeComplete)
	result["_meta"] = map[string]any{mcp.MetaKeyServerInfo: map[string]string{"name": Name, "version": Version}}
	return mcp.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Result: result}, http.StatusOK, true
}

// checkModernHeaders applies the 2026 era's header rules to a request the
// transport answers itself: the protocol version header agrees with _meta,
// Mcp-Method names the method, and, for a task method, Mcp-Name the task
// (SEP-2663's routing headers).
func checkModernHeaders(h http.Header, version, method string, taskID *string) error {
	switch {
	case h.Get(mcp.HeaderProtocolVersion) != version:
		return errors.New("header mismatch: " + mcp.HeaderProtocolVersion + " does not match the request's _meta protocol version")
	case h.Get(mcp.HeaderMethod) != method:
		return errors.New("header mismatch: " + mcp.HeaderMethod + " must be " + method)
	case taskID != nil && method != "tasks/result" && method != "tasks/list":
		name, ok := mcp.DecodeHeaderValue(h.Get(mcp.HeaderName))
		if !ok || name != *taskID {
			return errors.New("header mismatch: " + mcp.HeaderName + " must carry the taskId")
		}
	}
	return nil
}

// statusFor is the HTTP status of a JSON-RPC error in the 2026 era.
func statusFor(code int) int {
	switch code {
	case mcp.METHOD_NOT_FOUND:
		return http.StatusNotFound
	case mcp.HEADER_MISMATCH, mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, mcp.UNSUPPORTED_PROTOCOL_VERSION,
		mcp.INVALID_REQUEST, mcp.INVALID_PARAMS, mcp.PARSE_ERROR:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// quoteClip quotes a client's string, at most clip.Max bytes of it.
func quoteClip(s string) string { return strconv.Quote(clip.String(s)) }

// taskToolCall looks at a 2026-era tools/call before mcp-go does: a tool
// that runs only as a task, called without the extension, is refused with
// -32021 (the answer, with its HTTP status); a legacy task param is
// dropped from the body, which is returned (unchanged otherwise).
func (s *Server) taskToolCall(env envelope, body []byte) (answer any, status int, out []byte) {
	if env.method() != string(mcp.MethodToolsCall) {
		return nil, 0, body
	}
	// One decoding reads what this needs; the arguments are skipped.
	var p struct {
		Name string          `json:"name"`
		Meta *mcp.Meta       `json:"_meta"`
		Task json.RawMessage `json:"task"`
	}
	if json.Unmarshal(env.Params, &p) != nil {
		return nil, 0, body
	}
	if tool := s.mcp.GetTool(p.Name); tool != nil && tasks.Required(tool.Tool) {
		if caps := p.Meta.ClientCapabilities(); caps == nil || caps.Extensions[tasks.Extension] == nil {
			var id any
			_ = json.Unmarshal(env.ID, &id)
			return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Error: mcp.JSONRPCErrorDetails{
				Code:    mcp.MISSING_REQUIRED_CLIENT_CAPABILITY,
				Message: "tool " + quoteClip(p.Name) + " runs only as a task: declare the " + tasks.Extension + " extension in the request's client capabilities",
				Data:    map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{tasks.Extension: map[string]any{}}}},
			}}, http.StatusBadRequest, body
		}
	}
	if p.Task == nil {
		return nil, 0, body
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(env.Params, &params) != nil {
		return nil, 0, body
	}
	// The extension's server decides what becomes a task; a client's hint
	// from the older tasks is tolerated and ignored.
	delete(params, "task")
	var msg map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil {
		return nil, 0, body
	}
	msg["params"], _ = json.Marshal(params)
	rewritten, err := json.Marshal(msg)
	if err != nil {
		return nil, 0, body
	}
	return nil, 0, rewritten
}

var createdMark = []byte(tasks.CreatedKey)

// rewriteCreated turns the encoded answer of a call that became a task
// (one JSON-RPC response, bare or as an SSE event) into a CreateTaskResult;
// anything else is returned as it is.
func rewriteCreated(p []byte) []byte {
	if !bytes.Contains(p, createdMark) {
		return p
	}
	prefix, rest, suffix := []byte(nil), p, []byte(nil)
	if i := bytes.Index(p, []byte("data: ")); i >= 0 {
		prefix, rest = p[:i+len("data: ")], p[i+len("data: "):]
	}
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		rest, suffix = rest[:j], rest[j:]
	}
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  map[string]any  `json:"result"`
	}
	if json.Unmarshal(rest, &msg) != nil {
		return p
	}
	env := tasks.CreatedTask(msg.Result)
	if env == nil {
		return p
	}
	env["resultType"] = "task"
	if meta, ok := msg.Result["_meta"].(map[string]any); ok {
		delete(meta, tasks.CreatedKey)
		if len(meta) > 0 {
			env["_meta"] = meta
		}
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": msg.JSONRPC, "id": msg.ID, "result": env})
	if err != nil {
		return p
	}
	out := append(append(append([]byte(nil), prefix...), b...), suffix...)
	return out
}

// taskContext gives a 2026-era request the task table.
func (s *Server) taskContext(ctx context.Context) context.Context {
	return tasks.WithTable(ctx, s.tasks)
}

// stdioTaskLine is the tasks extension's look at a 2026-era message over
// stdio (stdioMessage): task methods are answered, a tools/call is checked.
func (s *Server) stdioTaskLine(env envelope, line []byte) (answer, pass []byte) {
	if a, _, ok := s.taskRequest(env, nil); ok {
		b, _ := json.Marshal(a)
		return b, nil
	}
	a, _, out := s.taskToolCall(env, line)
	if a != nil {
		b, _ := json.Marshal(a)
		return b, nil
	}
	return nil, out
}
