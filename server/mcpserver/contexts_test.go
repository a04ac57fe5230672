package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// critic answers sampling requests with a fixed critique and counts them.
type critic struct{ asked atomic.Int32 }

func (c *critic) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	c.asked.Add(1)
	return &mcp.CreateMessageResult{Model: "test-critic", SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant,
		Content: mcp.NewTextContent("critique of: " + lastLine(req.Messages))}}, nil
}

func lastLine(msgs []mcp.SamplingMessage) string {
	if len(msgs) == 0 {
		return ""
	}
	var text string
	switch c := msgs[len(msgs)-1].Content.(type) {
	case mcp.TextContent:
		text = c.Text
	case *mcp.TextContent:
		text = c.Text
	case map[string]any:
		text, _ = c["text"].(string)
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	return lines[len(lines)-1]
}

// rootsLister answers roots requests with one root.
type rootsLister struct{ asked atomic.Int32 }

func (r *rootsLister) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	r.asked.Add(1)
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///work/eras", Name: "eras"}}}, nil
}

// TestModernClientRunsAWholeSession is issue 3/7's end-to-end check: a
// 2026-era client (mcp-go's client in its 2026 mode) runs a whole reasoning
// session in a context — start_new, cipher, thoughts with a branch and a
// revision, a critique answered through input_required, list_roots, the
// closing export — on each storage mode; on the durable ones a second server
// process on the same data dir continues the context.
func TestModernClientRunsAWholeSession(t *testing.T) {
	for _, storage := range []string{"memory", "fs", "sqlite"} {
		t.Run(storage, func(t *testing.T) {
			cfg := testConfig(t, storage)
			_, urlA := newHTTPServer(t, cfg)
			c, roots := &critic{}, &rootsLister{}
			a := dialModern(t, urlA, client.WithSamplingHandler(c), client.WithRootsHandler(roots))

			id := contextOf(t, a.inContext("", "start_new", map[string]any{"newWork": map[string]any{"project": "eras", "task": "whole"}}))
			if r := a.inContext(id, "cipher", nil); r.IsError {
				t.Fatalf("cipher: %s", r.Text)
			}
			thought := func(m *mcpClient, args map[string]any) map[string]any {
				t.Helper()
				args["totalThoughts"] = 6
				if _, ok := args["nextThoughtNeeded"]; !ok {
					args["nextThoughtNeeded"] = true
				}
				r := m.inContext(id, "thought", args)
				if r.IsError {
					t.Fatalf("thought %v: %s", args, r.Text)
				}
				return r.JSON(t)
			}
			sid := thought(a, map[string]any{"thought": "first"})["sessionId"]
			thought(a, map[string]any{"thought": "second"})
			thought(a, map[string]any{"thought": "a branch", "branchFromThought": 1, "branchId": "alt"})
			thought(a, map[string]any{"thought": "second, revised", "isRevision": true, "revisesThought": 2})
			critiqued := thought(a, map[string]any{"thought": "worth a critique", "critique": true, "verbose": true})
			cr, _ := critiqued["critique"].(map[string]any)
			if c.asked.Load() != 1 || cr["text"] != "critique of: Give your critique of this step." || cr["model"] != "test-critic" {
				t.Fatalf("critique through input_required: asked %d times, answer %v", c.asked.Load(), critiqued)
			}
			if critiqued["thoughtNumber"] != 4.0 || critiqued["thoughtHistoryLength"] != 5.0 || critiqued["sessionId"] != sid {
				t.Fatalf("the critiqued thought: %v", critiqued)
			}
			if r := a.inContext(id, "list_roots", nil); r.IsError || !strings.Contains(fmt.Sprint(r.Raw.Content), "file:///work/eras") || roots.asked.Load() != 1 {
				t.Fatalf("list_roots through input_required (asked %d): %v", roots.asked.Load(), r.Raw.Content)
			}

			closer := a
			if storage != "memory" {
				// A second server process on the same data serves the
				// context.
				_, urlB := startChildEnv(t, cfg.DataDir, nil, "THOUGHTBOX_STORAGE="+storage)
				closer = dialModern(t, urlB)
			}
			next := thought(closer, map[string]any{"thought": "elsewhere"})
			if next["thoughtNumber"] != 5.0 || next["sessionId"] != sid {
				t.Fatalf("the context continued: %v, want thought 5 of %v", next, sid)
			}
			closed := thought(closer, map[string]any{"thought": "done", "nextThoughtNeeded": false})
			path, _ := closed["exportPath"].(string)
			if closed["sessionClosed"] != true || path == "" {
				t.Fatalf("close: %v", closed)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var export struct {
				Nodes []struct {
					Data struct {
						Thought  string         `json:"thought"`
						Critique map[string]any `json:"critique"`
					} `json:"data"`
				} `json:"nodes"`
			}
			if err := json.Unmarshal(data, &export); err != nil {
				t.Fatal(err)
			}
			critiques, texts := 0, []string{}
			for _, n := range export.Nodes {
				texts = append(texts, n.Data.Thought)
				if n.Data.Critique != nil {
					critiques++
				}
			}
			want := "first|second|a branch|second, revised|worth a critique|elsewhere|done"
			if strings.Join(texts, "|") != want || critiques != 1 {
				t.Fatalf("export holds %q with %d critiques, want %q with 1", strings.Join(texts, "|"), critiques, want)
			}
			// The session is closed: the context's next thought starts anew.
			if n := thought(closer, map[string]any{"thought": "a new one"}); n["thoughtNumber"] != 1.0 || n["sessionId"] == sid {
				t.Fatalf("after the close: %v", n)
			}
		})
	}
}

// exchange sends one JSON-RPC request over HTTP with headers (beside
// Content-Type and Accept) and returns the HTTP status and every message of
// the answer: one for a JSON answer, each event's for an SSE stream.
func exchange(t *testing.T, url string, headers map[string]string, body map[string]any) (int, []map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("answer is not JSON (%d): %s", res.StatusCode, raw)
		}
		return res.StatusCode, []map[string]any{m}
	}
	var frames []map[string]any
	for _, line := range strings.Split(string(raw), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				t.Fatalf("event %q: %v", data, err)
			}
			frames = append(frames, m)
		}
	}
	if len(frames) == 0 {
		t.Fatalf("an event stream with no message (%d): %s", res.StatusCode, raw)
	}
	return res.StatusCode, frames
}

// post is exchange for an answer of one message (the last one is returned).
func post(t *testing.T, url string, headers map[string]string, body map[string]any) (int, map[string]any) {
	t.Helper()
	status, frames := exchange(t, url, headers, body)
	return status, frames[len(frames)-1]
}

// modernCall is a tools/call of thoughtbox_gateway in the 2026 era, with
// the sampling capability declared, and extra params merged in.
func modernCall(t *testing.T, url string, args map[string]any, extra map[string]any) map[string]any {
	t.Helper()
	params := map[string]any{"name": "thoughtbox_gateway", "arguments": args, "_meta": map[string]any{
		mcp.MetaKeyProtocolVersion:    mcp.ProtocolVersion20260728,
		mcp.MetaKeyClientCapabilities: map[string]any{"sampling": map[string]any{}},
	}}
	for k, v := range extra {
		params[k] = v
	}
	_, m := post(t, url, map[string]string{mcp.HeaderProtocolVersion: mcp.ProtocolVersion20260728,
		mcp.HeaderMethod: "tools/call", mcp.HeaderName: "thoughtbox_gateway"},
		map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
	return m
}

// TestCritiqueRecordedOnceAcrossRoundTrips: the thought is recorded before
// the input_required answer, a client that never retries has lost nothing, a
// tampered or foreign requestState is refused, and the retry attaches the
// critique without recording the thought again (D27).
func TestCritiqueRecordedOnceAcrossRoundTrips(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "fs"))
	start := modernCall(t, url, map[string]any{"operation": "start_new", "args": map[string]any{"newWork": map[string]any{"project": "p"}}}, nil)
	id := start["result"].(map[string]any)["structuredContent"].(map[string]any)["contextId"].(string)
	other := modernCall(t, url, map[string]any{"operation": "start_new", "args": map[string]any{"newWork": map[string]any{"project": "p"}}}, nil)
	otherID := other["result"].(map[string]any)["structuredContent"].(map[string]any)["contextId"].(string)
	modernCall(t, url, map[string]any{"operation": "cipher", "contextId": id}, nil)
	args := map[string]any{"operation": "thought", "contextId": id, "args": map[string]any{"thought": "judge me", "totalThoughts": 2, "nextThoughtNeeded": true, "critique": true}}

	first := modernCall(t, url, args, nil)["result"].(map[string]any)
	state, _ := first["requestState"].(string)
	requests, _ := first["inputRequests"].(map[string]any)
	critique, _ := requests["critique"].(map[string]any)
	if first["resultType"] != "input_required" || state == "" || critique["method"] != "sampling/createMessage" {
		t.Fatalf("first round: %v", first)
	}
	count := func() float64 {
		t.Helper()
		r := modernCall(t, url, map[string]any{"operation": "read_thoughts", "contextId": id, "args": map[string]any{"last": 10}}, nil)["result"].(map[string]any)
		text := r["content"].([]any)[0].(map[string]any)["text"].(string)
		var m map[string]any
		_ = json.Unmarshal([]byte(text), &m)
		n, _ := m["count"].(float64)
		return n
	}
	if n := count(); n != 1 {
		t.Fatalf("after the input_required answer the session holds %v thoughts, want 1 (recorded before asking)", n)
	}
	answer := map[string]any{"critique": map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "looks fine"}}}
	tampered := strings.Replace(state, state[:4], "eyJr", 1)
	if tampered == state {
		tampered = "x" + state
	}
	for name, extra := range map[string]map[string]any{
		"tampered": {"requestState": tampered, "inputResponses": answer},
		"unsigned": {"requestState": `{"k":"critique","c":"` + id + `"}`, "inputResponses": answer},
	} {
		if res := modernCall(t, url, args, extra); res["error"] == nil {
			t.Fatalf("%s requestState accepted: %v", name, res)
		}
	}
	notThought := map[string]any{"operation": "read_thoughts", "contextId": id, "args": map[string]any{"last": 1}}
	if res := modernCall(t, url, notThought, map[string]any{"requestState": state, "inputResponses": answer}); res["error"] == nil {
		t.Fatalf("a critique's requestState accepted on another operation: %v", res)
	}
	foreign := map[string]any{"operation": "thought", "contextId": otherID, "args": args["args"]}
	if res := modernCall(t, url, foreign, map[string]any{"requestState": state, "inputResponses": answer}); res["error"] == nil {
		t.Fatalf("a requestState of another context accepted: %v", res)
	}
	done := modernCall(t, url, args, map[string]any{"requestState": state, "inputResponses": answer})["result"].(map[string]any)
	if done["resultType"] != "complete" || done["isError"] == true {
		t.Fatalf("retry: %v", done)
	}
	var ans map[string]any
	_ = json.Unmarshal([]byte(done["content"].([]any)[0].(map[string]any)["text"].(string)), &ans)
	if ans["thoughtNumber"] != 1.0 {
		t.Fatalf("retry answered %v, want thought 1", ans)
	}
	if n := count(); n != 1 {
		t.Fatalf("after the retry the session holds %v thoughts, want 1", n)
	}
}

// TestContextsExpire: a context idle longer than the session timeout is an
// unknown context, and a server starting on the data forgets the stored
// contexts of clients that never came back.
func TestContextsExpire(t *testing.T) {
	cfg := testConfig(t, "fs")
	cfg.SessionTimeout = 300 * time.Millisecond
	_, url := newHTTPServer(t, cfg)
	m := dialModern(t, url)
	used := contextOf(t, m.inContext("", "start_new", map[string]any{"newWork": map[string]any{"project": "expiry"}}))
	contextOf(t, m.inContext("", "start_new", map[string]any{"newWork": map[string]any{"project": "expiry"}}))
	dir := filepath.Join(cfg.DataDir, "projects", cfg.Project, "contexts")
	contextFiles := func() []string {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		return files
	}
	if files := contextFiles(); len(files) != 2 {
		t.Fatalf("%d context files, want 2", len(files))
	}
	time.Sleep(2 * cfg.SessionTimeout)
	if r := m.inContext(used, "cipher", nil); !r.IsError || r.JSON(t)["contextId"] != used {
		t.Fatalf("an expired context was served: %s", r.Text)
	}
	newHTTPServer(t, cfg)
	if files := contextFiles(); len(files) != 0 {
		t.Fatalf("%d context files left after a start past their expiry, want 0", len(files))
	}
}
