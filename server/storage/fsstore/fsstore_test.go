package fsstore_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/fsstore"
)

func quiet() fsstore.Option {
	return fsstore.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

func open(t *testing.T, dir string) *fsstore.Store {
	t.Helper()
	// No background flush: the tests decide when manifests are written.
	s, err := fsstore.Open(dir, "_default", quiet(), fsstore.WithFlushInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func intp(n int) *int { return &n }

func build(t *testing.T, s *fsstore.Store) (*storage.Chain, string) {
	t.Helper()
	c, err := s.Create(storage.CreateParams{Title: "Probe", Tags: []string{"p"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []storage.Entry{
		{Thought: "one", NextThoughtNeeded: true},
		{Thought: "two", NextThoughtNeeded: true},
		{Thought: "alt", BranchID: "alt", BranchFromThought: intp(1), NextThoughtNeeded: true},
		{Thought: "three", NextThoughtNeeded: true},
	} {
		if _, err := c.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	dir, _ := s.SessionDir(c.ID())
	return c, dir
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestLayoutAndFiles(t *testing.T) {
	base := t.TempDir()
	s := open(t, base)
	c, dir := build(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dir, filepath.Join(base, "projects", "_default", "sessions")) || filepath.Base(dir) != c.ID() {
		t.Fatalf("session dir %s", dir)
	}
	for _, f := range []string{"config.json", filepath.Join(dir, "manifest.json"), filepath.Join(dir, "001.json"),
		filepath.Join(dir, "003.json"), filepath.Join(dir, "branches", "alt", "003.json"), filepath.Join(dir, "journal.jsonl")} {
		if _, err := os.Stat(filepath.Join(base, strings.TrimPrefix(f, base))); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	var m struct {
		ID           string              `json:"id"`
		Version      string              `json:"version"`
		ThoughtFiles []string            `json:"thoughtFiles"`
		BranchFiles  map[string][]string `json:"branchFiles"`
	}
	readJSON(t, filepath.Join(dir, "manifest.json"), &m)
	if m.ID != c.ID() || m.Version != "1.0.0" || !slices.Equal(m.ThoughtFiles, []string{"001.json", "002.json", "003.json"}) ||
		!slices.Equal(m.BranchFiles["alt"], []string{"003.json"}) {
		t.Errorf("manifest %+v", m)
	}
	// next links are written into the predecessor's file.
	var n storage.Node
	readJSON(t, filepath.Join(dir, "001.json"), &n)
	if !slices.Equal(n.Next, []string{c.ID() + ":2", c.ID() + ":alt:3"}) {
		t.Errorf("001.json next = %v", n.Next)
	}
	var cfg fsstore.Config
	readJSON(t, filepath.Join(base, "config.json"), &cfg)
	if cfg.InstallID == "" || cfg.SessionPartitionGranularity != "monthly" || cfg.DataDir != base {
		t.Errorf("config %+v", cfg)
	}
}

// TestJournalReplayWithoutManifest simulates a crash after thoughts were
// acknowledged but before the manifest was rewritten.
func TestJournalReplayWithoutManifest(t *testing.T) {
	base := t.TempDir()
	s := open(t, base)
	c, dir := build(t, s)
	before := c.Nodes()
	// The manifest still lists no thought files, as after kill -9.
	// A torn last journal line (an append that never completed) and stray
	// temporary files must not hurt.
	s.Crash()
	f, _ := os.OpenFile(filepath.Join(dir, "journal.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq":5,"id":"` + c.ID() + `:4","fi`)
	f.Close()
	os.WriteFile(filepath.Join(dir, "004.json.tmp"), []byte("{"), 0o644)
	os.WriteFile(filepath.Join(dir, "manifest.json.tmp"), []byte("{"), 0o644)

	s2 := open(t, base)
	defer s2.Close()
	c2, err := s2.Open(c.ID())
	if err != nil {
		t.Fatal(err)
	}
	after := c2.Nodes()
	a, _ := json.Marshal(before)
	b, _ := json.Marshal(after)
	if string(a) != string(b) {
		t.Fatalf("nodes differ after replay:\n%s\n%s", a, b)
	}
	if got := s2.Integrity(c.ID()); !got.Valid {
		t.Errorf("integrity after replay: %+v", got)
	}
	if len(s2.Damaged()) != 0 {
		t.Errorf("damaged: %v", s2.Damaged())
	}
	for _, tmp := range []string{"004.json.tmp", "manifest.json.tmp"} {
		if _, err := os.Stat(filepath.Join(dir, tmp)); !os.IsNotExist(err) {
			t.Errorf("stray %s not removed", tmp)
		}
	}
	// The next thought links to the last one created.
	a2, err := c2.Append(storage.Entry{Thought: "four"})
	if err != nil {
		t.Fatal(err)
	}
	if a2.Node.Data.ThoughtNumber != 4 || *a2.Node.Prev != c.ID()+":3" {
		t.Errorf("thought after replay: %+v", a2.Node)
	}
}

// TestJournalRepairsFiles damages thought files and the manifest of a
// journaled session: the journal holds everything, so the start-up rewrites
// them and the session is whole.
func TestJournalRepairsFiles(t *testing.T) {
	base := t.TempDir()
	s := open(t, base)
	c, dir := build(t, s)
	s.Close()
	want, _ := os.ReadFile(filepath.Join(dir, "003.json"))
	os.Remove(filepath.Join(dir, "002.json"))
	os.Remove(filepath.Join(dir, "branches", "alt", "003.json"))
	os.WriteFile(filepath.Join(dir, "003.json"), []byte("{not json"), 0o644)
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"id": broken`), 0o644)

	s2 := open(t, base)
	defer s2.Close()
	if got := s2.Integrity(c.ID()); !got.Valid {
		t.Fatalf("integrity after repair: %+v", got)
	}
	if len(s2.Damaged()) != 0 {
		t.Errorf("damaged: %v", s2.Damaged())
	}
	for _, f := range []string{"002.json", "branches/alt/003.json", "manifest.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not rewritten", f)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "003.json")); string(got) != string(want) {
		t.Errorf("003.json not restored:\n%s", got)
	}
	// A file deleted while the server runs is rewritten by the integrity check.
	os.Remove(filepath.Join(dir, "001.json"))
	if got := s2.Integrity(c.ID()); !got.Valid {
		t.Errorf("integrity after a deletion at run time: %+v", got)
	}
}

// TestDamageIsReported covers what no journal can repair: a session in the
// original layout with missing and unreadable files, a corrupt journal line,
// and a broken manifest without a journal.
func TestDamageIsReported(t *testing.T) {
	base := t.TempDir()
	sid := "9e048752-0c71-4b2f-a786-4d1975426e2e"
	dir := writeOriginal(t, base, sid)
	os.Remove(filepath.Join(dir, "002.json"))
	os.WriteFile(filepath.Join(dir, "branches", "alt", "003.json"), []byte("{not json"), 0o644)
	s := open(t, base)
	got := s.Integrity(sid)
	if got.Valid || !slices.Equal(got.MissingThoughtFiles, []string{"002.json"}) {
		t.Fatalf("integrity %+v", got)
	}
	joined := strings.Join(got.Errors, "; ")
	for _, want := range []string{"Missing thought file: 002.json", "Unreadable thought file: branches/alt/003.json"} {
		if !strings.Contains(joined, want) {
			t.Errorf("errors %q lack %q", joined, want)
		}
	}
	if _, ok := s.Damaged()[sid]; !ok {
		t.Errorf("damaged session not reported at start-up: %v", s.Damaged())
	}
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, "journal.jsonl")); err == nil {
		t.Error("a damaged session was given a journal, which would hide the damage")
	}

	// A corrupt line inside a journal.
	s = open(t, base)
	c, cdir := build(t, s)
	s.Close()
	data, _ := os.ReadFile(filepath.Join(cdir, "journal.jsonl"))
	lines := strings.SplitAfter(string(data), "\n")
	lines[2] = "garbage\n"
	os.WriteFile(filepath.Join(cdir, "journal.jsonl"), []byte(strings.Join(lines, "")), 0o644)
	s = open(t, base)
	if reason := s.Damaged()[c.ID()]; !strings.Contains(reason, "journal line 3 is corrupt") {
		t.Errorf("corrupt journal: %q", reason)
	}
	if got := s.Integrity(c.ID()); got.Valid {
		t.Errorf("integrity of a session with a corrupt journal is valid")
	}
	// Thoughts lost from the journal are salvaged from the files.
	if cc, err := s.Get(c.ID()); err != nil {
		t.Fatal(err)
	} else if _, total := cc.Len(); total != 4 {
		t.Errorf("salvaged %d thoughts, want 4", total)
	}
	s.Close()

	// A broken manifest without a journal.
	os.Remove(filepath.Join(dir, "journal.jsonl"))
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"id": broken`), 0o644)
	s = open(t, base)
	defer s.Close()
	if reason := s.Damaged()[sid]; !strings.Contains(reason, "Manifest unreadable") {
		t.Errorf("broken manifest: %q", reason)
	}
	if got := s.Integrity(sid); got.Valid || !got.SessionExists {
		t.Errorf("integrity of a session with a broken manifest: %+v", got)
	}
}

// writeOriginal writes a session the way the original server lays it out:
// no journal, stale next links on disk.
func writeOriginal(t *testing.T, base, sid string) string {
	t.Helper()
	dir := filepath.Join(base, "projects", "_default", "sessions", "2026-11", sid)
	os.MkdirAll(filepath.Join(dir, "branches", "alt"), 0o755)
	write := func(name, body string) { os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644) }
	write("manifest.json", `{"id":"`+sid+`","version":"1.0.0","thoughtFiles":["001.json","002.json"],"branchFiles":{"alt":["003.json"]},
	  "metadata":{"title":"Old","tags":["x"],"createdAt":"2026-11-22T08:00:00.000Z","updatedAt":"2026-11-22T08:00:01.000Z"}}`)
	write("001.json", `{"id":"`+sid+`:1","data":{"thought":"a","thoughtNumber":1,"totalThoughts":1,"nextThoughtNeeded":true,"timestamp":"2026-11-22T08:00:00.100Z"},"prev":null,"next":[],"revisesNode":null,"branchOrigin":null,"branchId":null}`)
	write("002.json", `{"id":"`+sid+`:2","data":{"thought":"b","thoughtNumber":2,"totalThoughts":2,"nextThoughtNeeded":true,"timestamp":"2026-11-22T08:00:00.200Z"},"prev":"`+sid+`:1","next":[],"revisesNode":null,"branchOrigin":null,"branchId":null}`)
	write("branches/alt/003.json", `{"id":"`+sid+`:alt:3","data":{"thought":"c","thoughtNumber":3,"totalThoughts":3,"nextThoughtNeeded":true,"branchFromThought":1,"branchId":"alt","timestamp":"2026-11-22T08:00:00.300Z"},"prev":"`+sid+`:1","next":[],"revisesNode":null,"branchOrigin":"`+sid+`:1","branchId":"alt"}`)
	return dir
}

// TestReadsOriginalLayout loads a session written by the original server
// (no journal, stale next links on disk).
func TestReadsOriginalLayout(t *testing.T) {
	base := t.TempDir()
	sid := "9e048752-0c71-4b2f-a786-4d1975426e2e"
	dir := writeOriginal(t, base, sid)
	s := open(t, base)
	defer s.Close()
	c, err := s.Get(sid)
	if err != nil {
		t.Fatal(err)
	}
	nodes := c.Nodes()
	if !slices.Equal(nodes[0].Next, []string{sid + ":2", sid + ":alt:3"}) {
		t.Errorf("next links not rebuilt: %v", nodes[0].Next)
	}
	if sess := c.Session(); sess.Title != "Old" || sess.ThoughtCount != 2 || sess.BranchCount != 1 || sess.PartitionPath != "2026-11" {
		t.Errorf("session %+v", sess)
	}
	if !s.Integrity(sid).Valid {
		t.Errorf("integrity %+v", s.Integrity(sid))
	}
	// The next links are now on disk, and the session has a journal.
	var n storage.Node
	readJSON(t, filepath.Join(dir, "001.json"), &n)
	if len(n.Next) != 2 {
		t.Errorf("001.json next after load: %v", n.Next)
	}
	if _, err := os.Stat(filepath.Join(dir, "journal.jsonl")); err != nil {
		t.Errorf("no journal written: %v", err)
	}
}

func TestInvalidConfigFailsClearly(t *testing.T) {
	base := t.TempDir()
	os.WriteFile(filepath.Join(base, "config.json"), []byte("{oops"), 0o644)
	_, err := fsstore.Open(base, "_default", quiet())
	if err == nil || !strings.Contains(err.Error(), "config") {
		t.Fatalf("open with a broken config: %v", err)
	}
}

func TestLegacyLayoutIsMigrated(t *testing.T) {
	base := t.TempDir()
	legacy := filepath.Join(base, "sessions", "2026-10", "abc")
	os.MkdirAll(legacy, 0o755)
	os.WriteFile(filepath.Join(legacy, "manifest.json"), []byte(`{"id":"abc","version":"1.0.0","thoughtFiles":[],"branchFiles":{},"metadata":{"title":"L","tags":[],"createdAt":"2026-10-01T00:00:00.000Z","updatedAt":"2026-10-01T00:00:00.000Z"}}`), 0o644)
	s := open(t, base)
	defer s.Close()
	if _, err := s.Get("abc"); err != nil {
		t.Fatalf("legacy session not migrated: %v", err)
	}
}

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestStrayTempsOfSummariesRemovedAfterStartUp: a session registered from
// its manifest at start-up has the stray temporary files of dead writers
// removed, in its directory and its branches', by the sweep start-up leaves
// running in the background (Close waits for it); a file named with the
// process's own id is spared, since the process may be writing it.
func TestStrayTempsOfSummariesRemovedAfterStartUp(t *testing.T) {
	base := t.TempDir()
	s := open(t, base)
	c, dir := build(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	dead := fmt.Sprintf("%d-1.tmp", deadPID(t))
	own := fmt.Sprintf("%d-1.tmp", os.Getpid())
	stray := []string{filepath.Join(dir, "004.json."+dead), filepath.Join(dir, "branches", "alt", "001.json."+dead)}
	spared := filepath.Join(dir, "005.json."+own)
	for _, p := range append(stray, spared) {
		if err := os.WriteFile(p, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s2 := open(t, base)
	if got := len(s2.List(storage.Filter{})); got != 1 {
		t.Fatalf("listed %d sessions", got)
	}
	// Close would stop a sweep still running (a busy machine may not have
	// begun it yet): what is left waits for the next start-up.
	s2.WaitStartupSweep()
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range stray {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("stray %s not removed (%v)", p, err)
		}
	}
	if _, err := os.Stat(spared); err != nil {
		t.Errorf("the process's own temporary file: %v", err)
	}
	s3 := open(t, base)
	defer s3.Close()
	if got := s3.Integrity(c.ID()); !got.Valid {
		t.Errorf("integrity: %+v", got)
	}
}

// TestContextFilesAreWrittenBesideAndTheirStraysRemoved: a context's file is
// written in contexts/writing and renamed into contexts/, which holds
// nothing else but the contexts; a dead writer's temporary file there is
// removed at start-up.
func TestContextFilesAreWrittenBesideAndTheirStraysRemoved(t *testing.T) {
	base := t.TempDir()
	s := open(t, base)
	const id = "0123456789abcdef0123456789abcdef"
	if err := s.PutContext(id, []byte(`{"stage":1}`), time.Now()); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "projects", "_default", "contexts")
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 2 || !slices.Contains(files, filepath.Join(dir, id+".json")) {
		t.Fatalf("contexts/ holds %v, want the context and writing/", files)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(dir, "writing", fmt.Sprintf("%s.json.%d-1.tmp", id, deadPID(t)))
	if err := os.WriteFile(stray, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := open(t, base)
	defer s2.Close()
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("stray %s not removed at start-up (%v)", stray, err)
	}
	if state, _, err := s2.GetContext(id); err != nil || string(state) != `{"stage":1}` {
		t.Errorf("context after a restart: %s, %v", state, err)
	}
}

// TestExpireContextsReadsOnlyTheStale: a context file modified since the
// cutoff is kept without being read (every server process sweeps the
// contexts when it starts, and over stdio every client starts one), so a
// fresh file that does not decode stays; a stale one is read, and goes.
func TestExpireContextsReadsOnlyTheStale(t *testing.T) {
	base := t.TempDir()
	s := open(t, base)
	defer s.Close()
	now := time.Now()
	const fresh, stale = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	for _, id := range []string{fresh, stale} {
		if err := s.PutContext(id, []byte(`{"stage":1}`), now); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(base, "projects", "_default", "contexts")
	if err := os.WriteFile(filepath.Join(dir, fresh+".json"), []byte("not JSON"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := now.Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, fresh+".json"), now, now); err != nil {
		t.Fatal(err)
	}
	if err := s.PutContext(stale, []byte(`{"stage":1}`), old); err != nil {
		t.Fatal(err)
	}
	n, err := s.ExpireContexts(now.Add(-time.Minute))
	if err != nil || n != 1 {
		t.Fatalf("ExpireContexts = %d, %v; want 1", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, fresh+".json")); err != nil {
		t.Errorf("the fresh context was read or removed: %v", err)
	}
	if _, _, err := s.GetContext(stale); !errors.Is(err, storage.ErrContextNotFound) {
		t.Errorf("the stale context: %v, want it expired", err)
	}
}
