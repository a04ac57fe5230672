package mcpserver_test

import (
	"context"
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
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.ProtocolVersion20260728
	req.Params.ClientInfo = mcp.Implementation{Name: "thoughtbox-tests", Version: "1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	if res.ProtocolVersion != mcp.ProtocolVersion20260728 {
		t.Fatalf("negotiated %q, want %s", res.ProtocolVersion, mcp.ProtocolVersion20260728)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &mcpClient{t: t, c: c}
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
