package fsstore

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

func openQuiet(t *testing.T, base string) *Store {
	t.Helper()
	s, err := Open(base, "_default", WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), WithFlushInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func boolp(b bool) *bool { return &b }

// writeSession creates a session with main-chain thoughts, a branch, a
// revision and a critique, closes the store and returns what it held.
func writeSession(t *testing.T, base string) (storage.Session, []storage.Node) {
	t.Helper()
	s := openQuiet(t, base)
	c, err := s.Create(storage.CreateParams{Title: "Lazy probe", Tags: []string{"lazy", "probe"}})
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	for _, e := range []storage.Entry{
		{Thought: "one", NextThoughtNeeded: true},
		{Thought: "two", NextThoughtNeeded: true},
		{Thought: "alt", BranchID: "alt", BranchFromThought: &one, NextThoughtNeeded: true},
		{Thought: "two again", IsRevision: boolp(true), RevisesThought: &one, NextThoughtNeeded: true},
		{Thought: "three"},
	} {
		if _, err := c.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.SetCritique(storage.MainNodeID(c.ID(), 2), storage.Critique{Text: "fine", Model: "m", Timestamp: "2026-01-01T00:00:00.000Z"}); err != nil {
		t.Fatal(err)
	}
	sess, nodes := c.Session(), c.Nodes()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return sess, nodes
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStartupListsFromManifests: after a clean shutdown a session is
// registered from its manifest alone, listed exactly as it was, and its
// thoughts are read on first use, whole.
func TestStartupListsFromManifests(t *testing.T) {
	base := t.TempDir()
	want, nodes := writeSession(t, base)
	s := openQuiet(t, base)
	defer s.Close()
	sf := s.filesOf(want.ID)
	if sf == nil || !sf.summary.Load() {
		t.Fatal("the session was read whole at start-up, not from its manifest")
	}
	listed := s.List(storage.Filter{})
	if len(listed) != 1 || asJSON(t, listed[0]) != asJSON(t, want) {
		t.Fatalf("listed from the manifest:\n%s\nwant\n%s", asJSON(t, listed), asJSON(t, want))
	}
	if found := s.List(storage.Filter{Search: "PROBE", AnyTags: []string{"lazy"}}); len(found) != 1 {
		t.Errorf("search finds %d sessions", len(found))
	}
	c, err := s.Get(want.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sf.summary.Load() {
		t.Error("Get returned a summary")
	}
	if asJSON(t, c.Nodes()) != asJSON(t, nodes) {
		t.Errorf("thoughts read on first use:\n%s\nwant\n%s", asJSON(t, c.Nodes()), asJSON(t, nodes))
	}
	if asJSON(t, c.Session()) != asJSON(t, want) {
		t.Errorf("session after loading:\n%s\nwant\n%s", asJSON(t, c.Session()), asJSON(t, want))
	}
	if got := s.Integrity(want.ID); !got.Valid {
		t.Errorf("integrity %+v", got)
	}
	// The loaded session takes thoughts as before.
	w, err := s.Open(want.ID)
	if err != nil {
		t.Fatal(err)
	}
	added, err := w.Append(storage.Entry{Thought: "four"})
	if err != nil || added.Node.Data.ThoughtNumber != 5 || *added.Node.Prev != storage.MainNodeID(want.ID, 4) {
		t.Fatalf("append after a lazy load: %+v %v", added.Node, err)
	}
	s.Release(want.ID)
}

// TestCrashedSessionIsReadAtStartup: a journal longer than its manifest
// says (thoughts acknowledged after the files were last written) is read
// whole at start-up, so the crash is recovered there.
func TestCrashedSessionIsReadAtStartup(t *testing.T) {
	base := t.TempDir()
	want, _ := writeSession(t, base)
	s := openQuiet(t, base)
	w, err := s.Open(want.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(storage.Entry{Thought: "after the last manifest"}); err != nil {
		t.Fatal(err)
	}
	s.Crash()
	s2 := openQuiet(t, base)
	defer s2.Close()
	if s2.filesOf(want.ID).summary.Load() {
		t.Fatal("a session whose journal is ahead of its manifest was registered from the manifest")
	}
	if got := s2.List(storage.Filter{}); len(got) != 1 || got[0].ThoughtCount != 5 {
		t.Fatalf("listed after the crash: %+v", got)
	}
	// Its manifest now records the journal: the next start lists it from there.
	s2.Close()
	s3 := openQuiet(t, base)
	defer s3.Close()
	if !s3.filesOf(want.ID).summary.Load() {
		t.Error("the repaired session is still read whole at start-up")
	}
	if got := s3.List(storage.Filter{}); len(got) != 1 || got[0].ThoughtCount != 5 {
		t.Fatalf("listed after the repair: %+v", got)
	}
}

// TestJournalDamageIsReportedOnFirstUse: damage inside a journal of the
// length its manifest records (a changed byte) cannot be seen without
// reading it; it is reported when the session is first used, by
// Integrity, Damaged and Get, as start-up reports it for the sessions it
// reads whole.
func TestJournalDamageIsReportedOnFirstUse(t *testing.T) {
	base := t.TempDir()
	want, _ := writeSession(t, base)
	dir := filepath.Join(base, "projects", "_default", "sessions", want.PartitionPath, want.ID)
	path := filepath.Join(dir, journalName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[2] = strings.Repeat("#", len(lines[2])-1) + "\n"
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openQuiet(t, base)
	defer s.Close()
	if len(s.Damaged()) != 0 {
		t.Fatalf("damage reported before the journal was read: %v", s.Damaged())
	}
	got := s.Integrity(want.ID)
	if got.Valid || !strings.Contains(strings.Join(got.Errors, "; "), "journal line 3 is corrupt") {
		t.Errorf("integrity on first use: %+v", got)
	}
	if reason := s.Damaged()[want.ID]; !strings.Contains(reason, "journal line 3 is corrupt") {
		t.Errorf("damaged after first use: %q", reason)
	}
	// The thoughts the journal lost are salvaged from the files.
	c, err := s.Get(want.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, total := c.Len(); total != 5 {
		t.Errorf("salvaged %d thoughts, want 5", total)
	}
}

// TestSummaryFollowsAnotherProcess: a session listed from its manifest
// shows what another process appends (counts, update time) without being
// loaded, and Get then reads every thought.
func TestSummaryFollowsAnotherProcess(t *testing.T) {
	base := t.TempDir()
	want, _ := writeSession(t, base)
	reader := openQuiet(t, base)
	defer reader.Close()
	writer := openQuiet(t, base)
	defer writer.Close()
	w, err := writer.Open(want.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(storage.Entry{Thought: "four"}); err != nil {
		t.Fatal(err)
	}
	two := 2
	last, err := w.Append(storage.Entry{Thought: "beta", BranchID: "beta", BranchFromThought: &two})
	if err != nil {
		t.Fatal(err)
	}
	reader.RescanNow()
	got := reader.List(storage.Filter{})
	if len(got) != 1 || got[0].ThoughtCount != 5 || got[0].BranchCount != 2 || got[0].UpdatedAt != last.Node.Data.Timestamp {
		t.Fatalf("listed while another process writes: %+v", got)
	}
	if !reader.filesOf(want.ID).summary.Load() {
		t.Error("listing loaded the session")
	}
	c, err := reader.Get(want.ID)
	if err != nil {
		t.Fatal(err)
	}
	if mainCount, total := c.Len(); mainCount != 5 || total != 7 {
		t.Errorf("read %d main thoughts, %d in all; want 5, 7", mainCount, total)
	}
	writer.Release(want.ID)
}

// TestStringCount: a manifest's thoughtFiles decode to their number, as a
// []string would to its length, and what a []string would refuse is
// refused.
func TestStringCount(t *testing.T) {
	for _, c := range []struct {
		json string
		n    int
		bad  bool
	}{
		{`[]`, 0, false}, {`null`, 0, false}, {`["001.json"]`, 1, false},
		{"[ \"001.json\",\n\t\"002.json\" ]", 2, false}, {`["a,b", "c\"]d", "[e]"]`, 3, false},
		{`[1]`, 0, true}, {`[["a"]]`, 0, true}, {`{"a":"b"}`, 0, true}, {`"a"`, 0, true}, {`[true]`, 0, true},
	} {
		var want []string
		wantErr := json.Unmarshal([]byte(c.json), &want) != nil
		var m struct {
			F stringCount `json:"f"`
		}
		err := json.Unmarshal([]byte(`{"f":`+c.json+`}`), &m)
		if (err != nil) != c.bad || wantErr != c.bad {
			t.Errorf("%s: error %v, []string error %v, want error %v", c.json, err, wantErr, c.bad)
		}
		if !c.bad && (int(m.F) != c.n || len(want) != c.n) {
			t.Errorf("%s: counted %d, []string has %d, want %d", c.json, m.F, len(want), c.n)
		}
	}
}
