package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// dialModern opens a 2026-era client (server/discover, no initialize, no
// session) over Streamable HTTP.
func dialModern(t *testing.T, url string, opts ...client.ClientOption) *mcpClient {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, append([]client.ClientOption{client.WithProtocolVersion(mcp.ProtocolVersion20260728)}, opts...)...)
	return initializeAt(t, c, mcp.ProtocolVersion20260728)
}

// inContext calls thoughtbox_gateway in context id ("" for none).
func (m *mcpClient) inContext(id, op string, args any) result {
	m.t.Helper()
	arguments := map[string]any{"operation": op}
	if args != nil {
		arguments["args"] = args
	}
	if id != "" {
		arguments["contextId"] = id
	}
	return m.tool("thoughtbox_gateway", arguments)
}

// contextOf returns the contextId of a start_new or load_context answer,
// checking that structuredContent carries the same one.
func contextOf(t *testing.T, r result) string {
	t.Helper()
	if r.IsError {
		t.Fatalf("expected a context, got an error: %s", r.Text)
	}
	sc, _ := r.Raw.StructuredContent.(map[string]any)
	id, _ := sc["contextId"].(string)
	if len(id) != 32 {
		t.Fatalf("structuredContent %v carries no contextId", r.Raw.StructuredContent)
	}
	last := r.Raw.Content[len(r.Raw.Content)-1].(mcp.TextContent).Text
	if want := "{\n  \"contextId\": \"" + id + "\"\n}"; last != want {
		t.Fatalf("last text block %q, want %q", last, want)
	}
	return id
}

func TestModernClientRunsInContexts(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	m := dialModern(t, url)
	legacy := dialHTTP(t, url)

	// The 2026 era lists contextId beside operation and args; the 2025
	// era sees 1.2.2's schema.
	schemaOf := func(m *mcpClient) map[string]any {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := m.c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if tool.Name == "thoughtbox_gateway" {
				var s map[string]any
				b, _ := json.Marshal(tool)
				_ = json.Unmarshal(b, &s)
				return s["inputSchema"].(map[string]any)
			}
		}
		t.Fatal("thoughtbox_gateway not listed")
		return nil
	}
	modern, old := schemaOf(m), schemaOf(legacy)
	if _, ok := modern["properties"].(map[string]any)["contextId"]; !ok {
		t.Errorf("2026-era schema: %v", modern)
	}
	if _, ok := old["properties"].(map[string]any)["contextId"]; ok {
		t.Errorf("2025-era schema changed: %v", old)
	}

	// Without a context a call starts at stage entry (D2 unchanged).
	if r := m.inContext("", "cipher", nil); !r.IsError || r.JSON(t)["currentStage"] != "entry" {
		t.Fatalf("cipher without a context: %s", r.Text)
	}
	id := contextOf(t, m.inContext("", "start_new", map[string]any{"newWork": map[string]any{"project": "eras"}}))
	if r := m.inContext(id, "cipher", nil); r.IsError {
		t.Fatalf("cipher in the context: %s", r.Text)
	}
	first := m.inContext(id, "thought", map[string]any{"thought": "one", "totalThoughts": 3, "nextThoughtNeeded": true}).JSON(t)
	second := m.inContext(id, "thought", map[string]any{"thought": "two", "totalThoughts": 3, "nextThoughtNeeded": true}).JSON(t)
	if first["thoughtNumber"] != 1.0 || second["thoughtNumber"] != 2.0 || first["sessionId"] != second["sessionId"] {
		t.Fatalf("thoughts in one context: %v then %v", first, second)
	}
	// A second context is its own: its first thought starts a new session.
	other := contextOf(t, m.inContext("", "start_new", map[string]any{"newWork": map[string]any{"project": "eras"}}))
	m.inContext(other, "cipher", nil)
	third := m.inContext(other, "thought", map[string]any{"thought": "elsewhere", "totalThoughts": 1, "nextThoughtNeeded": true}).JSON(t)
	if third["thoughtNumber"] != 1.0 || third["sessionId"] == first["sessionId"] {
		t.Fatalf("a second context shares the first's session: %v", third)
	}
	// The 2025 session beside them is at stage entry, and cannot borrow a
	// context.
	if r := legacy.gateway("cipher", nil); !r.IsError || r.JSON(t)["currentStage"] != "entry" {
		t.Fatalf("the 2025 session sees a context's stage: %s", r.Text)
	}
	if r := legacy.tool("thoughtbox_gateway", map[string]any{"operation": "cipher", "contextId": id}); !r.IsError || r.JSON(t)["contextId"] != id {
		t.Fatalf("a 2025 session used a 2026 context: %s", r.Text)
	}
	// An unknown context is an error naming it.
	bogus := "00000000000000000000000000000000"
	if r := m.inContext(bogus, "cipher", nil); !r.IsError || r.JSON(t)["contextId"] != bogus {
		t.Fatalf("unknown context: %s", r.Text)
	}
}

// TestListenAcknowledgesFirst: a 2026-era subscriptions/listen for
// notifications the server does not offer (its lists never change) gets the
// acknowledgement, establishing nothing, as the stream's first message, then
// its answer; every time (mcp-go alone often dropped the acknowledgement).
func TestListenAcknowledgesFirst(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	for i := 0; i < 20; i++ {
		_, frames := exchange(t, url, map[string]string{mcp.HeaderProtocolVersion: mcp.ProtocolVersion20260728, mcp.HeaderMethod: "subscriptions/listen"},
			map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "subscriptions/listen", "params": map[string]any{
				"notifications": map[string]any{"toolsListChanged": true, "promptsListChanged": true},
				"_meta":         map[string]any{mcp.MetaKeyProtocolVersion: mcp.ProtocolVersion20260728, mcp.MetaKeyClientCapabilities: map[string]any{}}}})
		if len(frames) != 2 || frames[0]["method"] != "notifications/subscriptions/acknowledged" || frames[1]["id"] != float64(i+1) {
			t.Fatalf("listen %d answered %v", i+1, frames)
		}
		params := frames[0]["params"].(map[string]any)
		if n, _ := params["notifications"].(map[string]any); len(n) != 0 || params["_meta"].(map[string]any)[mcp.MetaKeySubscriptionID] != float64(i+1) {
			t.Fatalf("acknowledgement %v: want nothing established, tagged with the request id", params)
		}
	}
}

// TestModernClientOverStdio: over stdio too a 2026-era client (no
// initialize) runs in contexts, beside nothing else.
func TestModernClientOverStdio(t *testing.T) {
	tr := transport.NewStdio(thoughtboxBinary(t), []string{"THOUGHTBOX_TRANSPORT=stdio", "DISABLE_THOUGHT_LOGGING=true", "THOUGHTBOX_STORAGE=memory"})
	m := initializeAt(t, client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20260728)), mcp.ProtocolVersion20260728)
	id := contextOf(t, m.inContext("", "start_new", map[string]any{"newWork": map[string]any{"project": "stdio"}}))
	m.inContext(id, "cipher", nil)
	a := m.inContext(id, "thought", map[string]any{"thought": "one", "totalThoughts": 2, "nextThoughtNeeded": true}).JSON(t)
	b := m.inContext(id, "thought", map[string]any{"thought": "two", "totalThoughts": 2, "nextThoughtNeeded": true}).JSON(t)
	if a["thoughtNumber"] != 1.0 || b["thoughtNumber"] != 2.0 || a["sessionId"] != b["sessionId"] {
		t.Fatalf("thoughts over stdio: %v, %v", a, b)
	}
	if r := m.inContext("", "cipher", nil); !r.IsError {
		t.Fatalf("a call without its context: %s", r.Text)
	}
}
