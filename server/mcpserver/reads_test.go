package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// TestReadsDoNotWrite reads a session with session get and load_context many
// times: its journal must not grow (each read used to append the session's
// metadata, tags included: 30 reads of a session with 3.6 MB of tags grew
// it by 113 MB).
func TestReadsDoNotWrite(t *testing.T) {
	cfg := testConfig(t, "fs")
	srv, url := newHTTPServer(t, cfg)
	m := dialHTTP(t, url)
	m.ready()
	sid := m.gateway("thought", map[string]any{"thought": "one", "nextThoughtNeeded": true, "sessionTags": []string{"a", "b"}}).JSON(t)["sessionId"].(string)
	if err := storage.Flush(srv.Store(), sid); err != nil {
		t.Fatal(err)
	}
	journals, _ := filepath.Glob(filepath.Join(cfg.DataDir, "projects", "_default", "sessions", "*", sid, "journal.jsonl"))
	if len(journals) != 1 {
		t.Fatalf("journal of %s not found", sid)
	}
	before, _ := os.Stat(journals[0])
	for i := 0; i < 30; i++ {
		if r := m.gateway("session", map[string]any{"operation": "get", "sessionId": sid}); r.IsError {
			t.Fatal(r.Text)
		}
		if r := m.gateway("load_context", map[string]any{"sessionId": sid}); r.IsError {
			t.Fatal(r.Text)
		}
	}
	after, _ := os.Stat(journals[0])
	if after.Size() != before.Size() {
		t.Errorf("30 reads grew the journal from %d to %d bytes", before.Size(), after.Size())
	}
}

// TestTagLimits bounds sessionTags like the title: at most 50 tags of at
// most 100 characters.
func TestTagLimits(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	m := dialHTTP(t, url)
	m.ready()
	many := make([]string, 51)
	for i := range many {
		many[i] = "t"
	}
	for _, tags := range [][]string{many, {strings.Repeat("x", 101)}} {
		r := m.gateway("thought", map[string]any{"thought": "t", "nextThoughtNeeded": true, "sessionTags": tags})
		if !r.IsError || !strings.Contains(r.Text, "sessionTags") {
			t.Errorf("%d tags, the longest %d characters: %s", len(tags), len(tags[len(tags)-1]), r.Text)
		}
	}
	if r := m.gateway("thought", map[string]any{"thought": "t", "nextThoughtNeeded": true, "sessionTags": many[:50]}); r.IsError {
		t.Errorf("50 tags refused: %s", r.Text)
	}
}
