package mcpserver_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRefusedFirstThoughtCreatesNothing sends first thoughts the ledger
// refuses on a connection without a reasoning session: no session may
// appear, neither in the list nor on disk.
func TestRefusedFirstThoughtCreatesNothing(t *testing.T) {
	cfg := testConfig(t, "fs")
	_, url := newHTTPServer(t, cfg)
	m := dialHTTP(t, url)
	m.ready()
	for _, args := range []map[string]any{
		{"thought": "t", "nextThoughtNeeded": true, "isRevision": true},
		{"thought": "t", "nextThoughtNeeded": true, "branchFromThought": 1},
		{"thought": "t", "nextThoughtNeeded": true, "sessionTags": make([]string, 51)},
	} {
		if r := m.gateway("thought", args); !r.IsError {
			t.Errorf("thought %v accepted: %s", args, r.Text)
		}
	}
	if got := m.gateway("session", map[string]any{"operation": "list"}).JSON(t)["count"]; got != 0.0 {
		t.Errorf("session list after refused thoughts: %v sessions", got)
	}
	dirs, _ := filepath.Glob(filepath.Join(cfg.DataDir, "projects", "_default", "sessions", "*", "*"))
	if len(dirs) > 0 {
		t.Errorf("refused thoughts left session directories: %v", dirs)
	}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, "exports")); err == nil {
		t.Error("refused thoughts wrote exports")
	}
}
