package mcpserver_test

import (
	"encoding/json"
	"testing"
)

// TestThoughtValidation sends every kind of invalid thought and checks the
// exact error; none of them may create a session or store anything.
func TestThoughtValidation(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	m := dialHTTP(t, url)
	m.ready()
	missing := func(received ...string) string {
		if received == nil {
			received = []string{}
		}
		b, _ := json.Marshal(map[string]any{"error": "Missing required parameters",
			"required": []string{"thought", "nextThoughtNeeded"},
			"optional": []string{"thoughtNumber", "totalThoughts", "verbose", "branchId", "branchFromThought", "isRevision",
				"revisesThought", "needsMoreThoughts", "includeGuide", "sessionTitle", "sessionTags", "agentId", "agentName", "critique"},
			"received": received})
		return string(b)
	}
	failed := func(msg string) string {
		b, _ := json.Marshal(map[string]any{"error": msg, "status": "failed"})
		return string(b)
	}
	cases := []struct {
		name string
		args string
		want string
	}{
		{"empty args", `{}`, missing()},
		{"no thought", `{"nextThoughtNeeded": true, "thoughtNumber": 1}`, missing("nextThoughtNeeded", "thoughtNumber")},
		{"empty thought", `{"thought": "", "nextThoughtNeeded": true}`, missing("thought", "nextThoughtNeeded")},
		{"null thought", `{"thought": null, "nextThoughtNeeded": true}`, missing("thought", "nextThoughtNeeded")},
		{"no nextThoughtNeeded", `{"thought": "x"}`, missing("thought")},
		{"thought not a string", `{"thought": 42, "nextThoughtNeeded": true}`, failed("Invalid thought: must be a string")},
		{"nextThoughtNeeded a string", `{"thought": "x", "nextThoughtNeeded": "yes"}`, failed("Invalid nextThoughtNeeded: must be a boolean")},
		{"nextThoughtNeeded null", `{"thought": "x", "nextThoughtNeeded": null}`, failed("Invalid nextThoughtNeeded: must be a boolean")},
		{"thoughtNumber a string", `{"thought": "x", "nextThoughtNeeded": true, "thoughtNumber": "3"}`, failed("Invalid thoughtNumber: when provided, must be a number")},
		{"thoughtNumber null", `{"thought": "x", "nextThoughtNeeded": true, "thoughtNumber": null}`, failed("Invalid thoughtNumber: when provided, must be a number")},
		{"thoughtNumber zero", `{"thought": "x", "nextThoughtNeeded": true, "thoughtNumber": 0}`, failed("Invalid thoughtNumber: must be a positive integer, got 0")},
		{"thoughtNumber fraction", `{"thought": "x", "nextThoughtNeeded": true, "thoughtNumber": 2.5}`, failed("Invalid thoughtNumber: must be a positive integer, got 2.5")},
		{"thoughtNumber negative", `{"thought": "x", "nextThoughtNeeded": true, "thoughtNumber": -1}`, failed("Invalid thoughtNumber: must be a positive integer, got -1")},
		{"totalThoughts a string", `{"thought": "x", "nextThoughtNeeded": true, "totalThoughts": "3"}`, failed("Invalid totalThoughts: when provided, must be a number")},
		{"branchId without branchFromThought", `{"thought": "x", "nextThoughtNeeded": true, "branchId": "b1"}`,
			failed("branchId requires branchFromThought. Branching creates an alternative reasoning path from a specific thought. Use branchFromThought to specify which thought number you're forking from. Example: { branchFromThought: 5, branchId: 'approach-a' }")},
		{"branchFromThought zero", `{"thought": "x", "nextThoughtNeeded": true, "branchId": "b1", "branchFromThought": 0}`, failed("Invalid branchFromThought: must be a positive integer, got 0")},
		{"branchId with a slash", `{"thought": "x", "nextThoughtNeeded": true, "branchId": "x/y", "branchFromThought": 1}`, failed(`Invalid branchId "x/y": use 1-64 lowercase letters, digits and hyphens (pattern ^[a-z0-9-]+$)`)},
		{"branchId escaping", `{"thought": "x", "nextThoughtNeeded": true, "branchId": "../esc", "branchFromThought": 1}`, failed(`Invalid branchId "../esc": use 1-64 lowercase letters, digits and hyphens (pattern ^[a-z0-9-]+$)`)},
		{"branchId upper case", `{"thought": "x", "nextThoughtNeeded": true, "branchId": "Alt", "branchFromThought": 1}`, failed(`Invalid branchId "Alt": use 1-64 lowercase letters, digits and hyphens (pattern ^[a-z0-9-]+$)`)},
		{"isRevision not a boolean", `{"thought": "x", "nextThoughtNeeded": true, "isRevision": "yes"}`, failed("Invalid isRevision: must be a boolean")},
		{"verbose as a string", `{"thought": "x", "nextThoughtNeeded": true, "verbose": "true"}`, failed("Invalid verbose: must be a boolean")},
		{"sessionTags not strings", `{"thought": "x", "nextThoughtNeeded": true, "sessionTags": [1]}`, failed("Invalid sessionTags: must be an array of strings")},
		{"first thought is a branch", `{"thought": "x", "nextThoughtNeeded": true, "branchId": "b1", "branchFromThought": 1}`,
			failed("branchFromThought 1 does not name an existing main-chain thought: there is no active reasoning session yet, so its first thought cannot be a branch")},
		{"first thought revises", `{"thought": "x", "nextThoughtNeeded": true, "revisesThought": 1}`,
			failed("revisesThought 1 does not name an existing thought: there is no active reasoning session yet")},
	}
	for _, c := range cases {
		// Raw JSON keeps the key order, which "received" reports.
		r := m.gateway("thought", json.RawMessage(c.args))
		if !r.IsError {
			t.Errorf("%s: accepted: %s", c.name, r.Text)
			continue
		}
		if got := compact(t, r.Text); got != compact(t, c.want) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
	if r := m.gateway("thought", nil); !r.IsError || r.Text != "Thought operation requires args with thought parameters" {
		t.Errorf("no args: %+v", r)
	}
	if r := m.gateway("session", map[string]any{"operation": "list"}); r.JSON(t)["count"] != 0.0 {
		t.Errorf("invalid thoughts created sessions: %s", r.Text)
	}

	// Rules that need the session's content.
	m.gateway("thought", map[string]any{"thought": "one", "nextThoughtNeeded": true})
	m.gateway("thought", map[string]any{"thought": "two", "nextThoughtNeeded": true})
	rules := []struct {
		name string
		args map[string]any
		want string
	}{
		{"duplicate number", map[string]any{"thought": "x", "nextThoughtNeeded": true, "thoughtNumber": 2},
			"thought 2 already exists in this session; omit thoughtNumber to append, or record a revision with isRevision: true and revisesThought: 2"},
		{"self revision", map[string]any{"thought": "x", "nextThoughtNeeded": true, "thoughtNumber": 3, "isRevision": true, "revisesThought": 3},
			"revisesThought 3 does not name an existing main-chain thought of this session"},
		{"revision of nothing", map[string]any{"thought": "x", "nextThoughtNeeded": true, "isRevision": true, "revisesThought": 9},
			"revisesThought 9 does not name an existing main-chain thought of this session"},
		{"isRevision alone", map[string]any{"thought": "x", "nextThoughtNeeded": true, "isRevision": true},
			"isRevision requires revisesThought: give the number of the thought this one revises"},
		{"fork from nothing", map[string]any{"thought": "x", "nextThoughtNeeded": true, "branchId": "a", "branchFromThought": 7},
			"branchFromThought 7 does not name an existing main-chain thought of this session; branches fork from a main-chain thought"},
		{"fork without branch id", map[string]any{"thought": "x", "nextThoughtNeeded": true, "branchFromThought": 1},
			"branchFromThought requires branchId: name the branch (lowercase letters, digits and hyphens)"},
	}
	for _, c := range rules {
		r := m.gateway("thought", c.args)
		if !r.IsError || r.JSON(t)["error"] != c.want || r.JSON(t)["status"] != "failed" {
			t.Errorf("%s: %s", c.name, r.Text)
		}
	}
	m.gateway("thought", map[string]any{"thought": "a1", "nextThoughtNeeded": true, "branchId": "a", "branchFromThought": 1})
	if r := m.gateway("thought", map[string]any{"thought": "a2", "nextThoughtNeeded": true, "branchId": "a", "branchFromThought": 2}); !r.IsError ||
		r.JSON(t)["error"] != "branch 'a' forks from thought 1; every thought of the branch must give branchFromThought: 1" {
		t.Errorf("fork point change: %s", r.Text)
	}
	// Nothing the rules refused was stored.
	if r := m.gateway("get_structure", nil); compact(t, r.Text) != compact(t, `{"sessionId": "`+r.JSON(t)["sessionId"].(string)+
		`", "totalThoughts": 3, "mainChain": {"length": 2, "head": 1, "tail": 2}, "branches": {"a": {"forks": 1, "range": [3, 3], "length": 1}}, "branchCount": 1, "revisions": [], "revisionCount": 0}`) {
		t.Errorf("structure after refused thoughts: %s", r.Text)
	}
}

func compact(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
