package mcpserver

import "testing"

// TestSessionStaticKeyNeedsTheVersionHeader: a 2025-era session's tools/list
// is keyed by the protocol version its header declares; without the header
// the version is the one the session negotiated, which the key cannot
// name, so the request is left to mcp-go.
func TestSessionStaticKeyNeedsTheVersionHeader(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}`)
	if _, _, ok := sessionStaticKey("", body); ok {
		t.Error("a tools/list without the version header has a key")
	}
	a, id, ok := sessionStaticKey("2025-11-25", body)
	b, _, _ := sessionStaticKey("2025-06-18", body)
	if !ok || string(id) != "7" || a == b {
		t.Errorf("keys %q and %q, id %s, ok %v: want one key per version", a, b, id, ok)
	}
}
