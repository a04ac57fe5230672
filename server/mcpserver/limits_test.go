package mcpserver_test

import (
	"strings"
	"testing"
)

// TestThoughtNumberLimit applies one limit, 2,147,483,647, everywhere: it
// can be written and read back, and no thought is ever numbered past it.
func TestThoughtNumberLimit(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	m := dialHTTP(t, url)
	m.ready()
	const max = 2147483647
	if r := m.gateway("thought", map[string]any{"thought": "at the limit", "thoughtNumber": max, "nextThoughtNeeded": true}); r.IsError {
		t.Fatalf("thought %d refused: %s", max, r.Text)
	}
	r := m.gateway("thought", map[string]any{"thought": "past the limit", "nextThoughtNeeded": true})
	if !r.IsError || !strings.Contains(r.Text, "2147483647") {
		t.Fatalf("an auto-numbered thought after %d: %s", max, r.Text)
	}
	r = m.gateway("thought", map[string]any{"thought": "branch past the limit", "branchId": "b", "branchFromThought": max, "nextThoughtNeeded": true})
	if !r.IsError {
		t.Fatalf("an auto-numbered branch thought after %d: %s", max, r.Text)
	}
	if r := m.gateway("read_thoughts", map[string]any{"thoughtNumber": max}); r.IsError || !strings.Contains(r.Text, "at the limit") {
		t.Errorf("read_thoughts %d: %s", max, r.Text)
	}
	for _, op := range []struct {
		name string
		args map[string]any
	}{
		{"thought", map[string]any{"thought": "t", "thoughtNumber": max + 1, "nextThoughtNeeded": true}},
		{"read_thoughts", map[string]any{"thoughtNumber": max + 1}},
	} {
		if r := m.gateway(op.name, op.args); !r.IsError || !strings.Contains(r.Text, "2147483647") {
			t.Errorf("%s with %d: %s", op.name, max+1, r.Text)
		}
	}
}
