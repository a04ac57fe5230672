package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// TestStartupReportsEveryDamagedSession covers the gaps of the start-up
// check: a session directory that lost manifest and journal but has its
// thought files is reported (it was skipped silently), the advice for a
// session nothing can read does not point to session get (which cannot read
// it either), and no problem is listed twice.
func TestStartupReportsEveryDamagedSession(t *testing.T) {
	cfg := testConfig(t, "fs")
	orphan := "11111111-0c71-4b2f-a786-4d1975426e2e"
	broken := "22222222-0c71-4b2f-a786-4d1975426e2e"
	missing := "33333333-0c71-4b2f-a786-4d1975426e2e"
	part := filepath.Join(cfg.DataDir, "projects", "_default", "sessions", "2026-11")
	node := func(sid string, n string) string {
		return `{"id":"` + sid + `:` + n + `","data":{"thought":"a","thoughtNumber":` + n + `,"totalThoughts":3,"nextThoughtNeeded":true,"timestamp":"2026-11-22T08:00:00.100Z"},"prev":null,"next":[],"revisesNode":null,"branchOrigin":null,"branchId":null}`
	}
	write := func(sid, name, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(part, sid), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(part, sid, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(orphan, "001.json", node(orphan, "1"))
	write(broken, "001.json", node(broken, "1"))
	write(broken, "manifest.json", `{"id": broken`)
	write(missing, "manifest.json", `{"id":"`+missing+`","version":"1.0.0","thoughtFiles":["001.json","003.json"],"branchFiles":{},
	  "metadata":{"title":"Old","tags":[],"createdAt":"2026-11-22T08:00:00.000Z","updatedAt":"2026-11-22T08:00:01.000Z"}}`)
	write(missing, "001.json", node(missing, "1"))

	srv, url := newHTTPServer(t, cfg)
	damaged := storage.Damaged(srv.Store())
	for _, sid := range []string{orphan, broken, missing} {
		if _, ok := damaged[sid]; !ok {
			t.Errorf("start-up did not report %s: %v", sid, damaged)
		}
	}
	m := dialHTTP(t, url)
	for _, sid := range []string{orphan, broken} {
		r := m.gateway("load_context", map[string]any{"sessionId": sid})
		if !r.IsError || !strings.Contains(r.Text, "Recovery options") {
			t.Fatalf("load_context %s: %s", sid, r.Text)
		}
		if strings.Contains(r.Text, "(get,") {
			t.Errorf("the advice for %s points to session get:\n%s", sid, r.Text)
		}
		m.ready()
		if g := m.gateway("session", map[string]any{"operation": "get", "sessionId": sid}); !g.IsError {
			t.Errorf("session get %s reads it after all: the advice could point there", sid)
		}
	}
	r := m.gateway("load_context", map[string]any{"sessionId": missing})
	if !r.IsError || strings.Count(r.Text, "Missing thought file: 003.json") != 1 {
		t.Errorf("load_context %s repeats or lacks its problem:\n%s", missing, r.Text)
	}
}
