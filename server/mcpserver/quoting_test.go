package mcpserver_test

import (
	"strings"
	"testing"
)

// TestErrorsQuoteABoundedPrefix sends 128 KiB names where the server quotes
// them in errors: the answers must stay small.
func TestErrorsQuoteABoundedPrefix(t *testing.T) {
	cfg := testConfig(t, "fs")
	_, url := newHTTPServer(t, cfg)
	m := dialHTTP(t, url)
	m.ready()
	huge := strings.Repeat("z", 128<<10) // 32 times the bound
	m.gateway("thought", map[string]any{"thought": "one", "nextThoughtNeeded": true})
	check := func(what string, text string) {
		t.Helper()
		if len(text) > 4096 {
			t.Errorf("%s: a %d-byte answer quotes the input in full", what, len(text))
		}
		if !strings.Contains(text, "zzzz") {
			t.Errorf("%s: the answer does not quote the input at all: %s", what, text)
		}
	}
	check("operation", m.gateway(huge, nil).Text)
	check("load_context sessionId", m.gateway("load_context", map[string]any{"sessionId": huge}).Text)
	check("session get sessionId", m.gateway("session", map[string]any{"operation": "get", "sessionId": huge}).Text)
	check("session operation", m.gateway("session", map[string]any{"operation": huge}).Text)
	check("read_thoughts sessionId", m.gateway("read_thoughts", map[string]any{"sessionId": huge}).Text)
	check("read_thoughts branchId", m.gateway("read_thoughts", map[string]any{"branchId": huge, "thoughtNumber": 1}).Text)
	check("thought branchId", m.gateway("thought", map[string]any{"thought": "t", "nextThoughtNeeded": true, "branchId": huge, "branchFromThought": 1}).Text)
	check("observability operation", m.tool("observability_gateway", map[string]any{"operation": huge}).Text)
	_, err := m.toolRaw(huge, map[string]any{})
	if err == nil {
		t.Fatal("an unknown tool was accepted")
	}
	check("tool name", err.Error())
}
