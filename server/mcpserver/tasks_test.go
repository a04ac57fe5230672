package mcpserver_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// taskMeta is the _meta of a 2026-era request, with the tasks extension
// negotiated or not.
func taskMeta(withTasks bool) map[string]any {
	caps := map[string]any{}
	if withTasks {
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
	}
	return map[string]any{mcp.MetaKeyProtocolVersion: mcp.ProtocolVersion20260728, mcp.MetaKeyClientCapabilities: caps}
}

// rpc2026 sends one 2026-era request with the standard headers (name is
// the Mcp-Name, "" for none) and returns the HTTP status and the answer.
func rpc2026(t *testing.T, url, method, name string, params map[string]any) (int, map[string]any) {
	t.Helper()
	h := map[string]string{mcp.HeaderProtocolVersion: mcp.ProtocolVersion20260728, mcp.HeaderMethod: method}
	if name != "" {
		h[mcp.HeaderName] = name
	}
	return post(t, url, h, map[string]any{"jsonrpc": "2.0", "id": 9, "method": method, "params": params})
}

// TestLongOperationsRunAsTasks: with the tasks extension negotiated,
// deep_analysis answers with a task (resultType task, taskId, ttlMs,
// pollIntervalMs, no requestState) that tasks/get resolves at once and
// completes with the answer the same call gives without the extension; the
// extension's methods are refused without it, tasks/result and tasks/list
// are gone, an unknown task is -32602 and a wrong Mcp-Name -32020.
func TestLongOperationsRunAsTasks(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	call := func(withTasks bool, args map[string]any) map[string]any {
		t.Helper()
		_, m := rpc2026(t, url, "tools/call", "thoughtbox_gateway", map[string]any{"name": "thoughtbox_gateway", "arguments": args, "_meta": taskMeta(withTasks)})
		res, _ := m["result"].(map[string]any)
		if res == nil {
			t.Fatalf("tools/call %v: %v", args, m)
		}
		return res
	}
	start := call(false, map[string]any{"operation": "start_new", "args": map[string]any{"newWork": map[string]any{"project": "tasks"}}})
	id := start["structuredContent"].(map[string]any)["contextId"].(string)
	call(false, map[string]any{"operation": "cipher", "contextId": id})
	thought := call(false, map[string]any{"operation": "thought", "contextId": id, "args": map[string]any{"thought": "one", "totalThoughts": 2, "nextThoughtNeeded": true}})
	var th map[string]any
	_ = json.Unmarshal([]byte(thought["content"].([]any)[0].(map[string]any)["text"].(string)), &th)
	analysis := map[string]any{"operation": "deep_analysis", "contextId": id, "args": map[string]any{"sessionId": th["sessionId"], "analysisType": "patterns"}}

	sync := call(false, analysis)
	if sync["resultType"] != "complete" || sync["taskId"] != nil {
		t.Fatalf("without the extension: %v", sync)
	}
	created := call(true, analysis)
	taskID, _ := created["taskId"].(string)
	if created["resultType"] != "task" || taskID == "" || created["status"] != "working" || created["requestState"] != nil ||
		created["ttlMs"] == nil || created["pollIntervalMs"] == nil || created["content"] != nil {
		t.Fatalf("CreateTaskResult: %v", created)
	}
	var got map[string]any
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		status, m := rpc2026(t, url, "tasks/get", taskID, map[string]any{"taskId": taskID, "_meta": taskMeta(true)})
		got, _ = m["result"].(map[string]any)
		if status != http.StatusOK || got == nil || got["resultType"] != "complete" {
			t.Fatalf("tasks/get: %d %v", status, m)
		}
		if got["status"] != "working" || time.Now().After(deadline) {
			break
		}
	}
	// The same analysis, apart from when it was made.
	analysisOf := func(res map[string]any) map[string]any {
		content, _ := res["content"].([]any)
		if len(content) != 1 {
			return nil
		}
		var m map[string]any
		_ = json.Unmarshal([]byte(content[0].(map[string]any)["text"].(string)), &m)
		delete(m, "timestamp")
		return m
	}
	result, _ := got["result"].(map[string]any)
	if want := analysisOf(sync); got["status"] != "completed" || want == nil || !reflect.DeepEqual(analysisOf(result), want) {
		t.Fatalf("the task ended %v\nwant the analysis %v", got, want)
	}
	if _, m := rpc2026(t, url, "tasks/cancel", taskID, map[string]any{"taskId": taskID, "_meta": taskMeta(true)}); m["result"].(map[string]any)["resultType"] != "complete" {
		t.Fatalf("cancel of an ended task: %v", m)
	}

	for _, c := range []struct {
		method, name string
		params       map[string]any
		status, code int
	}{
		{"tasks/get", taskID, map[string]any{"taskId": taskID, "_meta": taskMeta(false)}, 400, mcp.MISSING_REQUIRED_CLIENT_CAPABILITY},
		{"tasks/get", "nope", map[string]any{"taskId": "nope", "_meta": taskMeta(true)}, 400, mcp.INVALID_PARAMS},
		{"tasks/cancel", "nope", map[string]any{"taskId": "nope", "_meta": taskMeta(true)}, 400, mcp.INVALID_PARAMS},
		{"tasks/get", "other", map[string]any{"taskId": taskID, "_meta": taskMeta(true)}, 400, mcp.HEADER_MISMATCH},
		{"tasks/result", taskID, map[string]any{"taskId": taskID, "_meta": taskMeta(true)}, 404, mcp.METHOD_NOT_FOUND},
		{"tasks/list", "", map[string]any{"_meta": taskMeta(true)}, 404, mcp.METHOD_NOT_FOUND},
	} {
		status, m := rpc2026(t, url, c.method, c.name, c.params)
		e, _ := m["error"].(map[string]any)
		if status != c.status || e == nil || e["code"] != float64(c.code) || m["id"] != 9.0 {
			t.Errorf("%s (Mcp-Name %q): %d %v, want %d with code %d", c.method, c.name, status, m, c.status, c.code)
		}
	}
}

// postFrames sends one 2026-era tools/call of thoughtbox_gateway and returns
// every JSON-RPC message of the answer (notifications first, over SSE).
func postFrames(t *testing.T, url string, args, meta map[string]any) []map[string]any {
	t.Helper()
	_, frames := exchange(t, url, map[string]string{mcp.HeaderProtocolVersion: mcp.ProtocolVersion20260728,
		mcp.HeaderMethod: "tools/call", mcp.HeaderName: "thoughtbox_gateway"},
		map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call",
			"params": map[string]any{"name": "thoughtbox_gateway", "arguments": args, "_meta": meta}})
	return frames
}

// TestModernCallsCarryTraceAndLogLevel: a 2026-era call's events carry the
// traceparent of its _meta and its context as the connection; log messages
// go out only to a request whose _meta asks for a log level.
func TestModernCallsCarryTraceAndLogLevel(t *testing.T) {
	cfg := testConfig(t, "memory")
	path := filepath.Join(t.TempDir(), "events.jsonl")
	cfg.Events.Enabled, cfg.Events.Dest = true, path
	srv, url := newHTTPServer(t, cfg)
	meta := func(extra map[string]any) map[string]any {
		m := map[string]any{mcp.MetaKeyProtocolVersion: mcp.ProtocolVersion20260728, mcp.MetaKeyClientCapabilities: map[string]any{}}
		maps.Copy(m, extra)
		return m
	}
	last := func(frames []map[string]any) map[string]any {
		t.Helper()
		r, _ := frames[len(frames)-1]["result"].(map[string]any)
		if r == nil {
			t.Fatalf("no result: %v", frames)
		}
		return r
	}
	start := last(postFrames(t, url, map[string]any{"operation": "start_new", "args": map[string]any{"newWork": map[string]any{"project": "trace"}}}, meta(nil)))
	id := start["structuredContent"].(map[string]any)["contextId"].(string)
	last(postFrames(t, url, map[string]any{"operation": "cipher", "contextId": id}, meta(nil)))
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	thought := map[string]any{"operation": "thought", "contextId": id, "args": map[string]any{"thought": "traced", "totalThoughts": 2, "nextThoughtNeeded": true}}
	quiet := postFrames(t, url, thought, meta(map[string]any{"traceparent": tp}))
	if len(quiet) != 1 {
		t.Fatalf("a call without a log level got %d messages: %v", len(quiet), quiet)
	}
	loud := postFrames(t, url, thought, meta(map[string]any{mcp.MetaKeyLogLevel: "info"}))
	if len(loud) != 2 || loud[0]["method"] != "notifications/message" {
		t.Fatalf("a call with logLevel info: %v", loud)
	}
	// Progress reports the thought's number out of its total, as in the
	// 2025 era.
	progress := postFrames(t, url, thought, meta(map[string]any{"progressToken": "p1"}))
	if len(progress) != 2 || progress[0]["method"] != "notifications/progress" {
		t.Fatalf("a call with a progress token: %v", progress)
	}
	if p := progress[0]["params"].(map[string]any); p["progress"] != 3.0 || p["total"] != 3.0 {
		t.Fatalf("progress of the third thought (total 2, raised to 3): %v", p)
	}
	srv.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		if ev["type"] == "thought_added" && strings.Contains(line, `"traced"`) && ev["traceparent"] == tp {
			found = true
			if ev["mcpSessionId"] != id {
				t.Errorf("the event's connection is %v, want the context %s", ev["mcpSessionId"], id)
			}
		}
	}
	if !found {
		t.Fatalf("no thought_added event carries the traceparent:\n%s", data)
	}
}

// TestALongRunLeavesItsContextFree: while a notebook run goes on as a task,
// the same context's other calls go on (the run does not hold its
// context), and tasks/cancel stops the run: the task ends cancelled.
func TestALongRunLeavesItsContextFree(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	call := func(args map[string]any) map[string]any {
		t.Helper()
		_, m := rpc2026(t, url, "tools/call", "thoughtbox_gateway", map[string]any{"name": "thoughtbox_gateway", "arguments": args, "_meta": taskMeta(true)})
		res, _ := m["result"].(map[string]any)
		if res == nil || res["isError"] == true {
			t.Fatalf("tools/call %v: %v", args, m)
		}
		return res
	}
	text := func(res map[string]any) map[string]any {
		var m map[string]any
		_ = json.Unmarshal([]byte(res["content"].([]any)[0].(map[string]any)["text"].(string)), &m)
		return m
	}
	id := call(map[string]any{"operation": "start_new", "args": map[string]any{"newWork": map[string]any{"project": "runs"}}})["structuredContent"].(map[string]any)["contextId"].(string)
	call(map[string]any{"operation": "cipher", "contextId": id})
	nb := text(call(map[string]any{"operation": "notebook", "contextId": id, "args": map[string]any{"operation": "create", "title": "waits", "language": "javascript"}}))
	notebookID, _ := nb["notebook"].(map[string]any)["id"].(string)
	if notebookID == "" {
		notebookID, _ = nb["id"].(string)
	}
	cell := text(call(map[string]any{"operation": "notebook", "contextId": id, "args": map[string]any{"operation": "add_cell", "notebookId": notebookID,
		"cellType": "code", "content": "setTimeout(() => console.log('late'), 20000)", "filename": "wait.js"}}))
	cellID, _ := cell["cell"].(map[string]any)["id"].(string)
	if cellID == "" {
		cellID, _ = cell["id"].(string)
	}
	created := call(map[string]any{"operation": "notebook", "contextId": id, "args": map[string]any{"operation": "run_cell", "notebookId": notebookID, "cellId": cellID}})
	taskID, _ := created["taskId"].(string)
	if created["resultType"] != "task" || taskID == "" {
		t.Fatalf("run_cell with the extension: %v (notebook %v, cell %v)", created, nb, cell)
	}
	if n := text(call(map[string]any{"operation": "thought", "contextId": id, "args": map[string]any{"thought": "meanwhile", "totalThoughts": 1, "nextThoughtNeeded": true}})); n["thoughtNumber"] != 1.0 {
		t.Fatalf("a thought beside the run: %v", n)
	}
	get := func() map[string]any {
		_, m := rpc2026(t, url, "tasks/get", taskID, map[string]any{"taskId": taskID, "_meta": taskMeta(true)})
		return m["result"].(map[string]any)
	}
	if st := get()["status"]; st != "working" {
		t.Fatalf("the 20-second run is %v once the thought beside it is answered; the thought waited for it", st)
	}
	rpc2026(t, url, "tasks/cancel", taskID, map[string]any{"taskId": taskID, "_meta": taskMeta(true)})
	if st := get()["status"]; st != "cancelled" {
		t.Fatalf("after tasks/cancel: %v", st)
	}
}
