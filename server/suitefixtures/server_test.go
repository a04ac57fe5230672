package suitefixtures_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
	"github.com/thoughtbox-bench/tbbench/server/mcptest"
)

// The tests run the reference server in process, with the fixtures on or
// off, and talk to it as the conformance suite does: mcp-go's client in
// either era, and raw 2026-era POSTs where the wire itself is checked.

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// startServer starts a reference server on a loopback listener and returns
// the URL of its MCP endpoint.
func startServer(t *testing.T, fixtures bool) string {
	t.Helper()
	cfg := mcpserver.Defaults()
	cfg.Storage = "memory"
	cfg.DataDir = t.TempDir()
	cfg.DisableThoughtLogging = true
	cfg.ConformanceFixtures = fixtures
	srv, err := mcpserver.New(cfg, mcpserver.WithLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ts.Close()
		_ = srv.Close()
	})
	return ts.URL + mcpserver.MCPPath
}

// answers is a client that answers sampling, elicitation and roots
// requests, counting them.
type answers struct {
	sampled, elicited, listed atomic.Int32
	// elicit answers an elicitation (default: accept with name "Alice",
	// color "blue", ok true and more).
	elicit func(mcp.ElicitationRequest) map[string]any
}

func (a *answers) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	a.sampled.Add(1)
	res := &mcp.CreateMessageResult{Model: "test-model", StopReason: "endTurn"}
	res.Role = mcp.RoleAssistant
	res.Content = mcp.NewTextContent("sampled: " + messageText(req.Messages))
	return res, nil
}

func (a *answers) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.elicited.Add(1)
	content := map[string]any{"name": "Alice", "color": "blue", "ok": true, "username": "alice", "email": "alice@example.com", "context": "the tests"}
	if a.elicit != nil {
		content = a.elicit(req)
	}
	res := &mcp.ElicitationResult{}
	res.Action, res.Content = mcp.ElicitationResponseActionAccept, content
	return res, nil
}

func (a *answers) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	a.listed.Add(1)
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///work/fixtures", Name: "fixtures"}}}, nil
}

func messageText(msgs []mcp.SamplingMessage) string {
	var parts []string
	for _, m := range msgs {
		switch c := m.Content.(type) {
		case mcp.TextContent:
			parts = append(parts, c.Text)
		case map[string]any:
			s, _ := c["text"].(string)
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// dialLegacy opens a 2025-11-25 session that answers server requests with a.
func dialLegacy(t *testing.T, url string, a *answers) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, transport.WithContinuousListening(), transport.WithHTTPLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithSamplingHandler(a), client.WithElicitationHandler(a), client.WithRootsHandler(a))
	start(t, c, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	return c
}

// dialModern opens a 2026-07-28 client (no session) that answers input
// requests with a.
func dialModern(t *testing.T, url string, a *answers) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20260728),
		client.WithSamplingHandler(a), client.WithElicitationHandler(a), client.WithRootsHandler(a))
	start(t, c, mcp.ProtocolVersion20260728)
	return c
}

func start(t *testing.T, c *client.Client, version string) {
	t.Helper()
	mcptest.Start(t, c, version, "suitefixtures-tests")
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// call calls a tool and returns its result, failing the test on an error.
func call(t *testing.T, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(ctx(t), req)
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// firstText is the text of a result's first block ("" when it is no text).
func firstText(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	tc, _ := res.Content[0].(mcp.TextContent)
	return tc.Text
}

// rpc is a decoded JSON-RPC response.
type rpc struct {
	Status int
	Result map[string]any
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	}
	// Events are the messages before the response on an SSE stream.
	Events []map[string]any
}

// caps are client capabilities for post.
var (
	noCaps   = map[string]any{}
	allCaps  = map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{}, "roots": map[string]any{}}
	taskCaps = map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}
)

// post sends a 2026-era request as the suite does: _meta with the protocol
// version and caps, and the standard headers (Mcp-Method, Mcp-Name);
// headers override or add to them.
func post(t *testing.T, url, method string, params map[string]any, caps map[string]any, headers map[string]string) rpc {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	meta, _ := params["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[mcp.MetaKeyProtocolVersion] = mcp.ProtocolVersion20260728
	meta[mcp.MetaKeyClientInfo] = map[string]any{"name": "suitefixtures-tests", "version": "1"}
	meta[mcp.MetaKeyClientCapabilities] = caps
	params["_meta"] = meta
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	req, err := http.NewRequestWithContext(ctx(t), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728)
	req.Header.Set(mcp.HeaderMethod, method)
	for _, k := range []string{"name", "uri", "taskId"} {
		if v, ok := params[k].(string); ok {
			req.Header.Set(mcp.HeaderName, v)
		}
	}
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := rpc{Status: resp.StatusCode}
	var msgs [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok && strings.TrimSpace(data) != "" {
				msgs = append(msgs, []byte(data))
			}
		}
	} else {
		b, _ := io.ReadAll(resp.Body)
		msgs = append(msgs, b)
	}
	for i, m := range msgs {
		if i < len(msgs)-1 {
			var ev map[string]any
			_ = json.Unmarshal(m, &ev)
			out.Events = append(out.Events, ev)
			continue
		}
		var r struct {
			ID     any            `json:"id"`
			Result map[string]any `json:"result"`
			Error  json.RawMessage
		}
		if err := json.Unmarshal(m, &r); err != nil {
			t.Fatalf("%s: answer is not JSON-RPC: %v\n%s", method, err, m)
		}
		if r.ID != 7.0 {
			t.Fatalf("%s: answer's id is %v, want 7: %s", method, r.ID, m)
		}
		out.Result = r.Result
		if len(r.Error) > 0 {
			_ = json.Unmarshal(r.Error, &out.Error)
		}
	}
	return out
}

// mustResult returns a successful answer's result.
func (r rpc) mustResult(t *testing.T, what string) map[string]any {
	t.Helper()
	if r.Error != nil || r.Result == nil {
		t.Fatalf("%s: HTTP %d, error %+v", what, r.Status, r.Error)
	}
	return r.Result
}
