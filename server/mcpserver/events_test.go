package mcpserver_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/events"
	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// eventLine is one line of the event file.
type eventLine struct {
	Type         string          `json:"type"`
	Timestamp    string          `json:"timestamp"`
	SessionID    *string         `json:"sessionId"`
	Data         json.RawMessage `json:"data"`
	MCPSessionID string          `json:"mcpSessionId"`
}

func readEvents(t *testing.T, path string) []eventLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []eventLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l eventLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("not a JSON line: %v\n%s", err, sc.Text())
		}
		keys := strings.Join(orderedKeys(t, sc.Bytes()), ",")
		if keys != "type,timestamp,sessionId,data,mcpSessionId" {
			t.Errorf("keys %s: %s", keys, sc.Text())
		}
		if _, err := time.Parse("2006-01-02T15:04:05.000Z", l.Timestamp); err != nil {
			t.Errorf("timestamp %q: %v", l.Timestamp, err)
		}
		out = append(out, l)
	}
	return out
}

func orderedKeys(t *testing.T, line []byte) []string {
	dec := json.NewDecoder(strings.NewReader(string(line)))
	dec.Token()
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	return keys
}

// TestEventStreamGoldenSession plays a session that reaches every event
// type and checks the event file line by line (D20).
func TestEventStreamGoldenSession(t *testing.T) {
	cfg := testConfig(t, "fs")
	path := filepath.Join(t.TempDir(), "events", "events.jsonl")
	cfg.Events.Enabled, cfg.Events.Dest = true, path
	srv, url := newHTTPServer(t, cfg)
	m := dialHTTP(t, url)
	m.ready()
	long := strings.Repeat("a", 120)
	steps := []map[string]any{
		{"thought": "first " + long, "thoughtNumber": 1, "totalThoughts": 4, "nextThoughtNeeded": true, "sessionTitle": "golden", "sessionTags": []string{"ev"}},
		{"thought": "second", "thoughtNumber": 2, "totalThoughts": 4, "nextThoughtNeeded": true},
		{"thought": "first again", "thoughtNumber": 3, "totalThoughts": 4, "nextThoughtNeeded": true, "isRevision": true, "revisesThought": 1},
		{"thought": "on a branch", "thoughtNumber": 4, "totalThoughts": 5, "nextThoughtNeeded": true, "branchFromThought": 2, "branchId": "alt"},
		{"thought": "done", "thoughtNumber": 4, "totalThoughts": 4, "nextThoughtNeeded": false},
	}
	var sid string
	for i, s := range steps {
		r := m.gateway("thought", s)
		if r.IsError {
			t.Fatalf("thought %d: %s", i, r.Text)
		}
		if v, ok := r.JSON(t)["sessionId"].(string); ok && sid == "" {
			sid = v
		}
	}
	// A second connection loads it, exports it as markdown and resumes it.
	m2 := dialHTTP(t, url)
	if r := m2.gateway("load_context", map[string]any{"sessionId": sid}); r.IsError {
		t.Fatal(r.Text)
	}
	if r := m2.gateway("session", map[string]any{"operation": "export", "sessionId": sid, "format": "markdown"}); r.IsError {
		t.Fatal(r.Text)
	}
	if r := m2.gateway("session", map[string]any{"operation": "resume", "sessionId": sid}); r.IsError {
		t.Fatal(r.Text)
	}
	if err := srv.Close(); err != nil { // drains the stream
		t.Fatal(err)
	}
	got := readEvents(t, path)
	var types []string
	for _, l := range got {
		types = append(types, l.Type)
	}
	want := []string{
		"stage_changed", "cipher_loaded", "stage_changed", // start_new, cipher
		"session_started", "thought_added", "thought_added",
		"thought_added", "thought_revised",
		"thought_added", "branch_created",
		"thought_added", "session_exported", // the closing thought's export
		"session_loaded", "stage_changed", // load_context on the second connection
		"session_exported", "session_loaded",
	}
	if !slices.Equal(types, want) {
		t.Fatalf("event types\n got %v\nwant %v", types, want)
	}
	for _, ty := range events.Types {
		if !slices.Contains(types, string(ty)) {
			t.Errorf("no %s event", ty)
		}
	}
	data := func(i int) map[string]any {
		var d map[string]any
		if err := json.Unmarshal(got[i].Data, &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	check := func(i int, key string, want any) {
		t.Helper()
		if g, _ := json.Marshal(data(i)[key]); string(g) != mustMarshal(want) {
			t.Errorf("event %d (%s) %s = %s, want %s", i, got[i].Type, key, g, mustMarshal(want))
		}
	}
	// Stages are numbered 0 (entry) to 3.
	check(0, "previousStage", 0)
	check(0, "newStage", 1)
	check(0, "trigger", "start_new")
	check(1, "stage", 2)
	check(2, "previousStage", 1)
	check(2, "newStage", 2)
	check(2, "trigger", "cipher")
	check(3, "sessionId", sid)
	check(3, "title", "golden")
	check(3, "tags", []string{"ev"})
	check(4, "thoughtNumber", 1)
	check(4, "thought", ("first " + long)[:100])
	check(4, "nextThoughtNeeded", true)
	check(4, "branchId", nil)
	check(7, "revisesThought", 1)
	check(7, "thoughtNumber", 3)
	check(8, "branchId", "alt")
	check(9, "branchId", "alt")
	check(9, "fromThoughtNumber", 2)
	check(10, "nextThoughtNeeded", false)
	check(11, "format", "json")
	check(11, "trigger", "close")
	check(11, "nodeCount", 5)
	if p, _ := data(11)["exportPath"].(string); !strings.HasSuffix(p, ".json") {
		t.Errorf("the close export's path: %q", p)
	}
	check(12, "sessionId", sid)
	check(12, "thoughtCount", 4)
	check(14, "format", "markdown")
	for i, l := range got {
		if l.MCPSessionID == "" {
			t.Errorf("event %d (%s) has no mcpSessionId", i, l.Type)
		}
		if i >= 3 && (l.SessionID == nil || *l.SessionID != sid) && l.Type != "stage_changed" {
			t.Errorf("event %d (%s) sessionId %v, want %s", i, l.Type, l.SessionID, sid)
		}
	}
	if got[0].MCPSessionID == got[12].MCPSessionID {
		t.Error("both connections' events carry the same mcpSessionId")
	}
	if st := srv.EventStats(); st.Written != uint64(len(got)) || st.Dropped != 0 || st.Failed != 0 {
		t.Errorf("stats %+v for %d lines", st, len(got))
	}
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestEventsOffByDefault: without the setting no event file is written
// and thoughts work as ever.
func TestEventsOffByDefault(t *testing.T) {
	cfg := testConfig(t, "memory")
	path := filepath.Join(t.TempDir(), "events.jsonl")
	cfg.Events.Dest = path
	srv, url := newHTTPServer(t, cfg)
	m := dialHTTP(t, url)
	m.ready()
	if r := m.gateway("thought", map[string]any{"thought": "x", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": true}); r.IsError {
		t.Fatal(r.Text)
	}
	srv.Close()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("an event file was written with the stream off: %v", err)
	}
}

// TestEventsToStdoutRefusedOverStdio: over stdio, stdout is the JSON-RPC
// channel, so the server refuses to start with events sent there.
func TestEventsToStdoutRefusedOverStdio(t *testing.T) {
	cmd := exec.Command(thoughtboxBinary(t))
	cmd.Env = append(os.Environ(), "THOUGHTBOX_TRANSPORT=stdio", "THOUGHTBOX_STORAGE=memory",
		"THOUGHTBOX_EVENTS_ENABLED=true", "THOUGHTBOX_EVENTS_DEST=stdout")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		t.Fatal("the server started")
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout: %q", stdout.String())
	}
	if !strings.Contains(stderr.String(), "THOUGHTBOX_EVENTS_DEST") || !strings.Contains(stderr.String(), "stdio") {
		t.Errorf("stderr does not explain: %s", stderr.String())
	}
	// The same settings are fine over HTTP.
	cfg := mcpserver.Defaults()
	cfg.Events.Enabled, cfg.Events.Dest = true, "stdout"
	if err := cfg.Validate(); err != nil {
		t.Errorf("stdout over http: %v", err)
	}
}
