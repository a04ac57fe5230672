package fsstore_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/fsstore"
)

// TestListSeesLaterChangesOfOtherProcesses runs two stores on one data
// directory: every list of the second shows the sessions the first created
// since its previous list, and, within a few rescans, what the first
// appended to a session the second knows already (read in the background).
func TestListSeesLaterChangesOfOtherProcesses(t *testing.T) {
	fsstore.RefreshInBackground(t)
	base := t.TempDir()
	a := open(t, base)
	defer a.Close()
	b := open(t, base)
	defer b.Close()
	if got := b.List(storage.Filter{}); len(got) != 0 {
		t.Fatalf("b lists %v in an empty store", got)
	}
	ids := map[string]bool{}
	var first *storage.Chain
	for i := range 3 {
		c, err := a.Create(storage.CreateParams{Title: "later"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Append(storage.Entry{Thought: "one"}); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = c
		}
		ids[c.ID()] = true
		b.RescanNow()
		got := b.List(storage.Filter{})
		if len(got) != i+1 {
			t.Fatalf("after %d sessions of a, b lists %d", i+1, len(got))
		}
		for _, s := range got {
			if !ids[s.ID] {
				t.Fatalf("b lists %s, which a did not create", s.ID)
			}
		}
	}
	if _, err := first.Append(storage.Entry{Thought: "two"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.RescanNow()
		for _, s := range b.List(storage.Filter{}) {
			if s.ID == first.ID() && s.ThoughtCount == 2 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("b's lists never show the second thought a appended")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestListRereadsAChangedPartition checks the incremental rescan with a
// partition directory old enough for its read to be trusted: a session
// created in it afterwards changes its time and is listed.
func TestListRereadsAChangedPartition(t *testing.T) {
	base := t.TempDir()
	a := open(t, base)
	defer a.Close()
	if _, err := a.Create(storage.CreateParams{Title: "old"}); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for _, dir := range []string{a.SessionsDir(), filepath.Join(a.SessionsDir(), time.Now().Format("2006-01"))} {
		if err := os.Chtimes(dir, old, old); err != nil {
			t.Fatal(err)
		}
	}
	b := open(t, base)
	defer b.Close()
	if got := b.List(storage.Filter{}); len(got) != 1 {
		t.Fatalf("b lists %d sessions, want 1", len(got))
	}
	if _, err := a.Create(storage.CreateParams{Title: "new"}); err != nil {
		t.Fatal(err)
	}
	b.RescanNow()
	if got := b.List(storage.Filter{}); len(got) != 2 {
		t.Fatalf("b lists %d sessions after a created a second, want 2", len(got))
	}
}
