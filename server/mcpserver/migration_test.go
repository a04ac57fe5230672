package mcpserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/fsstore"
)

// oldExport is an export file as the original server wrote it on close: its
// nodes by number (branch thought alt:3 was created before main thought 3),
// revision metadata on every node, and the self-loop the original wrote for
// a rewritten thought (node 2, whose predecessor only node 1's next names).
const oldExport = `{
  "version": "1.0",
  "session": {"id": "ac52c9f9-031b-4aea-ad5b-5d78d91e74b4", "title": "Old probe", "tags": ["old"], "thoughtCount": 3, "branchCount": 1,
    "partitionPath": "2026-11", "createdAt": "2026-11-22T08:00:00.000Z", "updatedAt": "2026-11-22T08:00:00.300Z", "lastAccessedAt": "2026-11-22T08:00:00.000Z"},
  "nodes": [
    {"id": "ac52c9f9-031b-4aea-ad5b-5d78d91e74b4:1", "data": {"thought": "one", "thoughtNumber": 1, "totalThoughts": 3, "nextThoughtNeeded": true, "timestamp": "2026-11-22T08:00:00.100Z"},
     "prev": null, "next": ["ac52c9f9-031b-4aea-ad5b-5d78d91e74b4:2"], "revisesNode": null, "branchOrigin": null, "branchId": null,
     "revisionMetadata": {"isOriginal": true, "isRevision": false, "revisesThought": null, "revisedBy": [3], "revisionDepth": 0, "revisionChainId": "chain-x-1"}},
    {"id": "ac52c9f9-031b-4aea-ad5b-5d78d91e74b4:2", "data": {"thought": "two", "thoughtNumber": 2, "totalThoughts": 3, "nextThoughtNeeded": true, "timestamp": "2026-11-22T08:00:00.200Z"},
     "prev": "ac52c9f9-031b-4aea-ad5b-5d78d91e74b4:2", "next": [], "revisesNode": null, "branchOrigin": null, "branchId": null},
    {"id": "ac52c9f9-031b-4aea-ad5b-5d78d91e74b4:alt:3", "data": {"thought": "alt three", "thoughtNumber": 3, "totalThoughts": 3, "nextThoughtNeeded": true, "branchFromThought": 2, "branchId": "alt", "timestamp": "2026-11-22T08:00:00.250Z"},
     "prev": "ac52c9f9-031b-4aea-ad5b-5d78d91e74b4:2", "next": [], "revisesNode": null, "branchOrigin": "ac52c9f9-031b-4aea-ad5b-5d78d91e74b4:2", "branchId": "alt"},
    {"id": "ac52c9f9-031b-4aea-ad5b-5d78d91e74b4:3", "data": {"thought": "three", "thoughtNumber": 3, "totalThoughts": 3, "nextThoughtNeeded": false, "isRevision": true, "revisesThought": 1, "timestamp": "2026-11-22T08:00:00.300Z"},
     "prev": "ac52c9f9-031b-4aea-ad5b-5d78d91e74b4:2", "next": [], "revisesNode": "ac52c9f9-031b-4aea-ad5b-5d78d91e74b4:1", "branchOrigin": null, "branchId": null}
  ],
  "revisionAnalysis": {"totalRevisions": 1, "mostRevisedThought": null, "avgTemporalDistance": 0, "revisionDensity": 25},
  "exportedAt": "2026-11-22T08:00:01.000Z"
}`

// TestOldExportsBecomeSessions: at start-up the export files of the export
// directory whose sessions the store lacks become sessions of the project
// (not copies in <data dir>/<YYYY-MM>/ as the original made, which nothing
// reads); a damaged export, and one whose branch id would leave the session
// directory, are reported and skipped without stopping the start; the next
// start imports nothing twice.
func TestOldExportsBecomeSessions(t *testing.T) {
	const sid = "ac52c9f9-031b-4aea-ad5b-5d78d91e74b4"
	cfg := testConfig(t, "fs")
	exports := cfg.ExportDirectory()
	if err := os.MkdirAll(exports, 0o700); err != nil {
		t.Fatal(err)
	}
	traversal := strings.ReplaceAll(strings.ReplaceAll(oldExport, sid, "bd52c9f9-031b-4aea-ad5b-5d78d91e74b4"), `"alt"`, `"../../x"`)
	traversal = strings.ReplaceAll(traversal, ":alt:", ":../../x:")
	for name, body := range map[string]string{
		sid + "-2026-11-22T08-00-01-000Z.json": oldExport,
		"broken.json":                          `{"version": broken`,
		"bd52c9f9-031b-4aea-ad5b-5d78d91e74b4-2026-11-22T08.json": traversal,
		"notes.txt": "not an export",
	} {
		if err := os.WriteFile(filepath.Join(exports, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	srv, url := newHTTPServer(t, cfg)
	rep := srv.Store().(*fsstore.Store).Migration()
	if rep.Migrated != 1 || rep.Failed != 2 || rep.Skipped != 0 {
		t.Fatalf("migration report %+v", rep)
	}
	for _, d := range rep.Details {
		if d.Status == fsstore.MigrationFailed && d.Reason == "" {
			t.Errorf("failure without a reason: %+v", d)
		}
	}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, "projects", "_default", "sessions", "2026-11", sid, "journal.jsonl")); err != nil {
		t.Errorf("the session is not in the project's sessions: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, "2026-11")); err == nil {
		t.Errorf("the original's wrong place <data dir>/2026-11 was written")
	}
	if entries, _ := filepath.Glob(filepath.Join(cfg.DataDir, ".migrating-*")); len(entries) > 0 {
		t.Errorf("temporary directories left: %v", entries)
	}

	m := dialHTTP(t, url)
	m.ready()
	got := m.gateway("session", map[string]any{"operation": "get", "sessionId": sid})
	if got.IsError {
		t.Fatalf("session get: %s", got.Text)
	}
	var answer struct {
		Session  struct{ Title string }
		Thoughts []struct {
			Thought string
		}
		Branches map[string][]struct{ Thought string }
	}
	if err := json.Unmarshal([]byte(got.Text), &answer); err != nil {
		t.Fatal(err)
	}
	if answer.Session.Title != "Old probe" || len(answer.Thoughts) != 3 || answer.Thoughts[2].Thought != "three" ||
		len(answer.Branches["alt"]) != 1 || answer.Branches["alt"][0].Thought != "alt three" {
		t.Errorf("session get: %s", got.Text)
	}
	// The links are rebuilt in creation order: 2 leads to alt:3 (created
	// first) and to 3; the self-loop is gone, and 2 follows 1 again.
	ex := m.gateway("session", map[string]any{"operation": "export", "sessionId": sid, "format": "json"}).JSON(t)
	var doc struct {
		Nodes []struct {
			ID   string
			Prev *string
			Next []string
		}
	}
	if err := json.Unmarshal([]byte(ex["content"].(string)), &doc); err != nil {
		t.Fatal(err)
	}
	links := map[string][]string{}
	for _, n := range doc.Nodes {
		links[strings.TrimPrefix(n.ID, sid+":")] = n.Next
	}
	want := map[string][]string{"1": {sid + ":2"}, "2": {sid + ":alt:3", sid + ":3"}, "alt:3": {}, "3": {}}
	if !reflect.DeepEqual(links, want) {
		t.Errorf("next links %v, want %v", links, want)
	}
	srv.Close()

	// The next start finds the session and skips its exports (the old one
	// and the one the json export above wrote) unread.
	srv2, err := mcpserver.New(cfg, mcpserver.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer srv2.Close()
	rep = srv2.Store().(*fsstore.Store).Migration()
	if rep.Migrated != 0 || rep.Skipped != 2 || rep.Failed != 2 {
		t.Errorf("second start: %+v", rep)
	}
	if n := len(srv2.Store().List(storage.Filter{})); n != 1 {
		t.Errorf("%d sessions after the second start, want 1", n)
	}
}
