package mcpserver_test

import (
	"fmt"
	"sync"
	"testing"
)

// TestStageGating calls every stage-gated operation too early and checks the
// exact error payload, then checks that only successful start_new/load_context
// and cipher advance the stage.
func TestStageGating(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	m := dialHTTP(t, url)
	needCipher := []string{"thought", "read_thoughts", "get_structure", "notebook", "mental_models", "knowledge"}
	needInit := []string{"cipher", "session", "deep_analysis"}
	check := func(op, current, required, suggestion string) {
		t.Helper()
		r := m.gateway(op, map[string]any{})
		if !r.IsError {
			t.Fatalf("%s at %s: not an error: %s", op, current, r.Text)
		}
		got := r.JSON(t)
		want := map[string]any{
			"error":         fmt.Sprintf("Operation '%s' requires stage %s, but current stage is %s", op, required, current),
			"currentStage":  current,
			"requiredStage": required,
			"suggestion":    suggestion,
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s at %s:\n got %v\nwant %v", op, current, got, want)
		}
	}
	for _, op := range needCipher {
		check(op, "entry", "cipher_loaded", "Call gateway with operation 'cipher' first.")
	}
	for _, op := range needInit {
		check(op, "entry", "init_complete", "Call gateway with operation 'start_new' or 'load_context' first.")
	}
	// A failed start_new and a failed load_context do not advance.
	if r := m.gateway("start_new", map[string]any{}); !r.IsError {
		t.Fatalf("start_new without newWork succeeded: %s", r.Text)
	}
	if r := m.gateway("load_context", map[string]any{"sessionId": "no-such-session"}); !r.IsError || r.Text != "Session not found: no-such-session" {
		t.Fatalf("load_context of an unknown session: %+v", r)
	}
	check("cipher", "entry", "init_complete", "Call gateway with operation 'start_new' or 'load_context' first.")
	// Operations at entry never advance.
	for _, op := range []string{"get_state", "list_sessions", "navigate"} {
		m.gateway(op, map[string]any{"target": map[string]any{}})
	}
	check("cipher", "entry", "init_complete", "Call gateway with operation 'start_new' or 'load_context' first.")
	if r := m.gateway("start_new", map[string]any{"newWork": map[string]any{"project": "p"}}); r.IsError {
		t.Fatalf("start_new: %s", r.Text)
	}
	for _, op := range needCipher {
		check(op, "init_complete", "cipher_loaded", "Call gateway with operation 'cipher' first.")
	}
	if r := m.gateway("session", map[string]any{"operation": "list"}); r.IsError {
		t.Fatalf("session list at init_complete: %s", r.Text)
	}
	if r := m.gateway("cipher", nil); r.IsError {
		t.Fatalf("cipher: %s", r.Text)
	}
	if r := m.gateway("read_thoughts", nil); !r.IsError || r.JSON(t)["error"] != "No active reasoning session" {
		t.Fatalf("read_thoughts after cipher: %s", r.Text)
	}
	// Re-running start_new and cipher later is allowed and does not go back.
	m.gateway("start_new", map[string]any{"newWork": map[string]any{"project": "q"}})
	if r := m.gateway("thought", map[string]any{"thought": "x", "nextThoughtNeeded": true}); r.IsError {
		t.Fatalf("thought after a second start_new: %s", r.Text)
	}
}

// TestConnectionsAreIsolated runs two MCP sessions side by side: stage and
// current reasoning session must not leak between them.
func TestConnectionsAreIsolated(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	a, b := dialHTTP(t, url), dialHTTP(t, url)
	a.ready()
	ra := a.gateway("thought", map[string]any{"thought": "in a", "nextThoughtNeeded": true})
	if ra.IsError {
		t.Fatal(ra.Text)
	}
	if r := b.gateway("thought", map[string]any{"thought": "in b", "nextThoughtNeeded": true}); !r.IsError || r.JSON(t)["currentStage"] != "entry" {
		t.Fatalf("second connection is not at entry: %s", r.Text)
	}
	b.ready()
	if r := b.gateway("read_thoughts", nil); !r.IsError {
		t.Fatalf("second connection sees the first one's session: %s", r.Text)
	}
	rb := b.gateway("thought", map[string]any{"thought": "in b", "nextThoughtNeeded": true})
	if rb.JSON(t)["sessionId"] == ra.JSON(t)["sessionId"] || rb.JSON(t)["thoughtNumber"] != 1.0 {
		t.Fatalf("sessions leaked: a=%s b=%s", ra.Text, rb.Text)
	}
	// Cross-session reads by id still work (behavioural test 20).
	r := b.gateway("read_thoughts", map[string]any{"sessionId": ra.JSON(t)["sessionId"], "last": 3})
	if r.IsError || r.JSON(t)["count"] != 1.0 {
		t.Fatalf("cross-session read: %s", r.Text)
	}
}

// TestThoughtsOfOneConnectionAreSerialised sends many auto-numbered thoughts
// at once on one MCP session: every one must get its own number.
func TestThoughtsOfOneConnectionAreSerialised(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "fs"))
	m := dialHTTP(t, url)
	m.ready()
	m.gateway("thought", map[string]any{"thought": "first", "nextThoughtNeeded": true})
	const n = 40
	var wg sync.WaitGroup
	numbers := make(chan float64, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := m.gateway("thought", map[string]any{"thought": fmt.Sprintf("parallel %d", i), "nextThoughtNeeded": true})
			if r.IsError {
				t.Errorf("thought %d: %s", i, r.Text)
				return
			}
			numbers <- r.JSON(t)["thoughtNumber"].(float64)
		}(i)
	}
	wg.Wait()
	close(numbers)
	seen := map[float64]bool{}
	for x := range numbers {
		if seen[x] {
			t.Errorf("thought number %v given twice", x)
		}
		seen[x] = true
	}
	for i := 2; i <= n+1; i++ {
		if !seen[float64(i)] {
			t.Errorf("thought number %d missing", i)
		}
	}
}
