package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// exportContent exports a session as linked JSON through the session
// operation and returns the content with exportedAt blanked.
func exportContent(t *testing.T, m *mcpClient, sid string) string {
	t.Helper()
	r := m.gateway("session", map[string]any{"operation": "export", "sessionId": sid, "format": "json"})
	if r.IsError {
		t.Fatalf("export %s: %s", sid, r.Text)
	}
	content, _ := r.JSON(t)["content"].(string)
	return regexp.MustCompile(`"exportedAt": "[^"]*"`).ReplaceAllString(content, `"exportedAt": ""`)
}

// TestRestartKeepsSessionsIdentical writes sessions with branches,
// revisions and backward numbering, stops the server, starts a new one on
// the same data directory and compares the exports byte for byte (D8).
func TestRestartKeepsSessionsIdentical(t *testing.T) {
	cfg := testConfig(t, "fs")
	srv, err := mcpserver.New(cfg, mcpserver.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	h := httpServe(t, srv)
	m := dialHTTP(t, h)
	m.ready()
	thought := func(args map[string]any) string {
		args["nextThoughtNeeded"] = true
		r := m.gateway("thought", args)
		if r.IsError {
			t.Fatalf("thought %v: %s", args, r.Text)
		}
		return r.JSON(t)["sessionId"].(string)
	}
	sid := thought(map[string]any{"thought": "goal @other:S1", "thoughtNumber": 5, "sessionTitle": "Restart probe", "sessionTags": []string{"r"}})
	thought(map[string]any{"thought": "four", "thoughtNumber": 4})
	thought(map[string]any{"thought": "three", "thoughtNumber": 3})
	thought(map[string]any{"thought": "alt one", "branchId": "alt", "branchFromThought": 4})
	thought(map[string]any{"thought": "alt two", "branchId": "alt", "branchFromThought": 4})
	thought(map[string]any{"thought": "fix four", "isRevision": true, "revisesThought": 4})
	thought(map[string]any{"thought": "fix the fix", "isRevision": true, "revisesThought": 6})
	before := exportContent(t, m, sid)
	list := m.gateway("session", map[string]any{"operation": "list"}).Text

	m.c.Close()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}

	srv2, err := mcpserver.New(cfg, mcpserver.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	m2 := dialHTTP(t, httpServe(t, srv2))
	m2.ready()
	after := exportContent(t, m2, sid)
	if before != after {
		t.Fatalf("export changed across the restart:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if got := m2.gateway("session", map[string]any{"operation": "list"}).Text; got != list {
		t.Errorf("session list changed:\nbefore %s\nafter %s", list, got)
	}
	// The next thought continues the chain after the last one created
	// (thought 7), not after the highest number.
	if r := m2.gateway("load_context", map[string]any{"sessionId": sid}); r.IsError {
		t.Fatalf("load_context after restart: %s", r.Text)
	}
	m2.gateway("cipher", nil)
	r := m2.gateway("thought", map[string]any{"thought": "after restart", "nextThoughtNeeded": true, "verbose": true})
	if r.JSON(t)["thoughtNumber"] != 8.0 {
		t.Fatalf("thought after restart: %s", r.Text)
	}
	var export struct {
		Nodes []struct {
			ID   string   `json:"id"`
			Prev *string  `json:"prev"`
			Next []string `json:"next"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(exportContent(t, m2, sid)), &export); err != nil {
		t.Fatal(err)
	}
	last := export.Nodes[len(export.Nodes)-1]
	if last.ID != sid+":8" || last.Prev == nil || *last.Prev != sid+":7" {
		t.Errorf("thought 8 links to %v, want %s:7", last.Prev, sid)
	}
}

// httpServe serves srv on a loopback listener and returns its MCP URL.
func httpServe(t *testing.T, srv *mcpserver.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler()}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String() + mcpserver.MCPPath
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startChild runs the thoughtbox binary over HTTP on dir and waits until it
// answers /health.
func startChild(t *testing.T, dir string) (*exec.Cmd, string) {
	t.Helper()
	return startChildEnv(t, dir, nil)
}

// startChildEnv is startChild with the child's stderr going to stderr (when
// not nil) and extra environment variables.
func startChildEnv(t *testing.T, dir string, stderr io.Writer, env ...string) (*exec.Cmd, string) {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(thoughtboxBinary(t))
	cmd.Env = append(os.Environ(), "THOUGHTBOX_DATA_DIR="+dir, "PORT="+strconv.Itoa(port), "DISABLE_THOUGHT_LOGGING=true")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(base + "/health"); err == nil {
			resp.Body.Close()
			return cmd, base + mcpserver.MCPPath
		}
	}
	t.Fatal("child server did not come up")
	return nil, ""
}

type acked struct {
	session string
	number  float64
	text    string
}

// TestKillNineLosesNoAcknowledgedThought kills the server with SIGKILL while
// three connections write thoughts, restarts it, and checks that every
// acknowledged thought is back and no session is damaged.
func TestKillNineLosesNoAcknowledgedThought(t *testing.T) { killNineLosesNothing(t) }

// killNineLosesNothing is TestKillNineLosesNoAcknowledgedThought with the
// child servers' extra environment env (a storage backend).
func killNineLosesNothing(t *testing.T, env ...string) {
	dir := t.TempDir()
	cmd, url := startChildEnv(t, dir, nil, env...)
	var mu sync.Mutex
	var got []acked
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < 3; w++ {
		m := dialHTTP(t, url)
		m.ready()
		wg.Add(1)
		go func(w int, m *mcpClient) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				args := map[string]any{"thought": fmt.Sprintf("writer %d thought %d", w, i), "nextThoughtNeeded": true}
				if i%7 == 3 {
					args["branchId"], args["branchFromThought"] = "side", 1
				}
				res, err := m.callRaw("thought", args)
				if err != nil || res.IsError {
					return // the server is gone: this call was not acknowledged
				}
				var ans map[string]any
				_ = json.Unmarshal([]byte(res.Text), &ans)
				mu.Lock()
				got = append(got, acked{ans["sessionId"].(string), ans["thoughtNumber"].(float64), args["thought"].(string)})
				mu.Unlock()
			}
		}(w, m)
	}
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 300 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	_ = cmd.Wait()

	_, url2 := startChildEnv(t, dir, nil, env...)
	m := dialHTTP(t, url2)
	m.ready()
	sessions := map[string]map[string]string{}
	for _, a := range got {
		if sessions[a.session] == nil {
			sessions[a.session] = map[string]string{}
		}
		sessions[a.session][fmt.Sprint(a.number)+"/"+a.text] = a.text
	}
	if len(sessions) != 3 {
		t.Fatalf("expected 3 sessions, saw %d", len(sessions))
	}
	for sid, want := range sessions {
		if r := m.gateway("load_context", map[string]any{"sessionId": sid}); r.IsError {
			t.Fatalf("session %s is damaged after kill -9: %s", sid, r.Text)
		}
		r := m.gateway("session", map[string]any{"operation": "get", "sessionId": sid})
		var res storedThoughts
		if err := json.Unmarshal([]byte(r.Text), &res); err != nil {
			t.Fatalf("get %s: %v\n%s", sid, err, r.Text)
		}
		have := map[string]bool{}
		for _, th := range res.Thoughts {
			have[fmt.Sprint(th.ThoughtNumber)+"/"+th.Thought] = true
		}
		for _, th := range res.Branches["side"] {
			have[fmt.Sprint(th.ThoughtNumber)+"/"+th.Thought] = true
		}
		for key := range want {
			if !have[key] {
				t.Errorf("session %s lost acknowledged thought %s", sid, key)
			}
		}
		// Every link of the export points at a node that exists.
		var export struct {
			Nodes []struct {
				ID   string   `json:"id"`
				Prev *string  `json:"prev"`
				Next []string `json:"next"`
			} `json:"nodes"`
		}
		if err := json.Unmarshal([]byte(exportContent(t, m, sid)), &export); err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, n := range export.Nodes {
			ids[n.ID] = true
		}
		for _, n := range export.Nodes {
			if n.Prev != nil && !ids[*n.Prev] {
				t.Errorf("%s: prev %s does not exist", n.ID, *n.Prev)
			}
			for _, x := range n.Next {
				if !ids[x] {
					t.Errorf("%s: next %s does not exist", n.ID, x)
				}
			}
		}
	}
	t.Logf("%d thoughts acknowledged before SIGKILL, all present after restart", len(got))
}

// TestSIGTERMFlushesEverything stops a child server with SIGTERM while a
// session is open: it must exit 0 with every thought file and an up-to-date
// manifest on disk.
func TestSIGTERMFlushesEverything(t *testing.T) {
	dir := t.TempDir()
	cmd, url := startChild(t, dir)
	m := dialHTTP(t, url)
	m.ready()
	var sid string
	for i := 0; i < 25; i++ {
		r := m.gateway("thought", map[string]any{"thought": fmt.Sprintf("thought %d", i+1), "nextThoughtNeeded": true})
		if r.IsError {
			t.Fatal(r.Text)
		}
		sid = r.JSON(t)["sessionId"].(string)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("server exit after SIGTERM: %v", err)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "projects", "_default", "sessions", "*", sid, "manifest.json"))
	if len(matches) != 1 {
		t.Fatalf("manifest of %s not found", sid)
	}
	var manifest struct {
		ThoughtFiles []string `json:"thoughtFiles"`
	}
	data, err := os.ReadFile(matches[0])
	if err != nil || json.Unmarshal(data, &manifest) != nil {
		t.Fatalf("manifest: %v %s", err, data)
	}
	if len(manifest.ThoughtFiles) != 25 {
		t.Errorf("manifest lists %d thought files, want 25", len(manifest.ThoughtFiles))
	}
	for _, f := range manifest.ThoughtFiles {
		if _, err := os.Stat(filepath.Join(filepath.Dir(matches[0]), f)); err != nil {
			t.Errorf("thought file %s missing after shutdown", f)
		}
	}
	tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(matches[0]), "*.tmp"))
	if len(tmps) > 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

// TestExportFailureKeepsTheSessionOpen closes a session whose export cannot
// be written: the answer carries the warning shape and the session goes on.
func TestExportFailureKeepsTheSessionOpen(t *testing.T) {
	cfg := testConfig(t, "memory")
	blocker := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.ExportDir = filepath.Join(blocker, "exports")
	_, url := newHTTPServer(t, cfg)
	m := dialHTTP(t, url)
	m.ready()
	first := m.gateway("thought", map[string]any{"thought": "one", "nextThoughtNeeded": true}).JSON(t)
	closing := m.gateway("thought", map[string]any{"thought": "two", "nextThoughtNeeded": false})
	got := closing.JSON(t)
	warning, _ := got["warning"].(string)
	if closing.IsError || got["sessionId"] != first["sessionId"] || got["sessionClosed"] != nil ||
		!strings.HasPrefix(warning, "Auto-export failed: ") || !strings.Contains(warning, "Session remains open") {
		t.Fatalf("closing answer: %s", closing.Text)
	}
	next := m.gateway("thought", map[string]any{"thought": "three", "nextThoughtNeeded": true}).JSON(t)
	if next["sessionId"] != first["sessionId"] || next["thoughtNumber"] != 3.0 {
		t.Errorf("after the failed export: %v", next)
	}
}

// TestLoadContextExplainsDamage loads a session in the original layout
// whose thought file is missing: load_context must refuse it and say how to
// recover, and the start-up must have reported it.
func TestLoadContextExplainsDamage(t *testing.T) {
	cfg := testConfig(t, "fs")
	sid := "9e048752-0c71-4b2f-a786-4d1975426e2e"
	dir := filepath.Join(cfg.DataDir, "projects", "_default", "sessions", "2026-11", sid)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"id":"`+sid+`","version":"1.0.0","thoughtFiles":["001.json","002.json"],"branchFiles":{},
	  "metadata":{"title":"Old","tags":[],"createdAt":"2026-11-22T08:00:00.000Z","updatedAt":"2026-11-22T08:00:01.000Z"}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "001.json"), []byte(`{"id":"`+sid+`:1","data":{"thought":"a","thoughtNumber":1,"totalThoughts":1,"nextThoughtNeeded":true,"timestamp":"2026-11-22T08:00:00.100Z"},"prev":null,"next":[],"revisesNode":null,"branchOrigin":null,"branchId":null}`), 0o644)
	srv, url := newHTTPServer(t, cfg)
	if _, ok := storage.Damaged(srv.Store())[sid]; !ok {
		t.Errorf("start-up did not report the damaged session")
	}
	m := dialHTTP(t, url)
	r := m.gateway("load_context", map[string]any{"sessionId": sid})
	if !r.IsError || !strings.Contains(r.Text, "Missing thought file: 002.json") || !strings.Contains(r.Text, "Recovery options:") {
		t.Fatalf("load_context of a damaged session: %+v", r)
	}
	if r := m.gateway("cipher", nil); !r.IsError {
		t.Error("a refused load_context advanced the stage")
	}
	m.gateway("start_new", map[string]any{"newWork": map[string]any{"project": "p"}})
	if r := m.gateway("session", map[string]any{"operation": "resume", "sessionId": sid}); !r.IsError || !strings.Contains(r.Text, "Recovery options") {
		t.Errorf("resume of a damaged session: %s", r.Text)
	}
}
