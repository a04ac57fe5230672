package fsstore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// TestWriteFileAtomic checks the system-call writer: content, mode 0644,
// a missing branch directory created, an existing file
// replaced, and no temporary file left behind.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "branches", "alt", "001.json")
	if err := writeFileAtomic(path, []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(path, []byte(`{"a":2}`)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != `{"a":2}` {
		t.Fatalf("content %q, %v", data, err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", info.Mode(), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("files left: %v", entries)
	}
}

// TestRecordJSON checks the hand-written journal line of a thought against
// encoding/json.
func TestRecordJSON(t *testing.T) {
	prev := "s:1"
	n := &storage.Node{ID: "s:2", Data: storage.ThoughtData{Thought: "a <b> & \"c\"\n", ThoughtNumber: 2, TotalThoughts: 2,
		NextThoughtNeeded: true, Timestamp: "2026-11-22T07:52:18.435Z"}, Prev: &prev, Next: []string{}}
	type plain record
	for _, r := range []record{{Seq: 7, Op: opAdd, File: "002.json", Node: n}, {Seq: 8, Op: opRewrite, Node: n},
		{Seq: 1, Op: opSession, Session: &storage.Session{ID: "s", Tags: []string{}}}} {
		got, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(plain(r))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

// TestWriteNewFile checks the direct writer: a new file (and its missing
// directory) is created with its content and mode 0600; a file that is
// there already is left as it is and reported not created.
func TestWriteNewFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "contexts", "0123.json")
	created, err := writeNewFile(path, []byte(`{"a":1}`))
	if err != nil || !created {
		t.Fatalf("first write: created %v, %v", created, err)
	}
	created, err = writeNewFile(path, []byte(`{"a":2}`))
	if err != nil || created {
		t.Fatalf("second write: created %v, %v", created, err)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != `{"a":1}` {
		t.Fatalf("content after a refused write %q, %v", data, err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", info.Mode(), err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("files left: %v", entries)
	}
}
