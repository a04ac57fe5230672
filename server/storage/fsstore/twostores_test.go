package fsstore_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/fsstore"
)

// TestTwoStoresOneSession runs two stores on one data directory (flock
// locks conflict between open files even within a process): a session the
// first created is visible to the second, which cannot open it while the
// first has it open, and reads what the first appended.
func TestTwoStoresOneSession(t *testing.T) {
	base := t.TempDir()
	a := open(t, base)
	defer a.Close()
	b := open(t, base)
	defer b.Close()
	c, err := a.Create(storage.CreateParams{Title: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	c.Append(storage.Entry{Thought: "one"})
	if got := b.List(storage.Filter{}); len(got) != 1 || got[0].ID != c.ID() {
		t.Fatalf("b lists %v", got)
	}
	var busy *storage.BusyError
	if _, err := b.Open(c.ID()); !errors.As(err, &busy) || busy.PID != os.Getpid() {
		t.Fatalf("b opened a session a has open: %v", err)
	}
	c.Append(storage.Entry{Thought: "two"})
	cb, err := b.Get(c.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, total := cb.Len(); total != 2 {
		t.Errorf("b reads %d thoughts, a appended 2", total)
	}
	a.Release(c.ID())
	cb, err = b.Open(c.ID())
	if err != nil {
		t.Fatalf("b cannot open the session a released: %v", err)
	}
	added, err := cb.Append(storage.Entry{Thought: "three"})
	if err != nil || added.Node.Data.ThoughtNumber != 3 {
		t.Fatalf("b's append: %+v %v", added.Node.Data, err)
	}
	if _, err := a.Open(c.ID()); !errors.As(err, &busy) {
		t.Fatalf("a opened the session b has open: %v", err)
	}
}

// TestOpenWaitsForTheLock configures the second store to wait: it gets the
// session as soon as the first releases it.
func TestOpenWaitsForTheLock(t *testing.T) {
	base := t.TempDir()
	a := open(t, base)
	defer a.Close()
	b, err := fsstore.Open(base, "_default", quiet(), fsstore.WithFlushInterval(0), fsstore.WithLockWait(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, _ := a.Create(storage.CreateParams{Title: "shared"})
	go func() {
		time.Sleep(200 * time.Millisecond)
		a.Release(c.ID())
	}()
	start := time.Now()
	if _, err := b.Open(c.ID()); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < 150*time.Millisecond {
		t.Errorf("b did not wait (%v)", waited)
	}
}

// TestConflictingJournalRecordsAreDamage writes a journal the way two
// servers without locks did: two records with one sequence number, for two
// different thoughts 2. The start-up reports the session as damaged instead
// of keeping one and dropping the other silently.
func TestConflictingJournalRecordsAreDamage(t *testing.T) {
	base := t.TempDir()
	s := open(t, base)
	c, _ := s.Create(storage.CreateParams{Title: "twice"})
	c.Append(storage.Entry{Thought: "one"})
	c.Append(storage.Entry{Thought: "two on A"})
	dir, _ := s.SessionDir(c.ID())
	s.Close()
	journal := filepath.Join(dir, "journal.jsonl")
	data, _ := os.ReadFile(journal)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	last := lines[len(lines)-1]
	dup := strings.Replace(last, "two on A", "two on B", 1)
	os.WriteFile(journal, []byte(string(data)+dup+"\n"), 0o600)
	s2 := open(t, base)
	defer s2.Close()
	reason := s2.Damaged()[c.ID()]
	if !strings.Contains(reason, "two servers wrote this session") {
		t.Fatalf("conflicting records not reported: %q", reason)
	}
	if got := s2.Integrity(c.ID()); got.Valid {
		t.Errorf("integrity of a session with conflicting records is valid")
	}
}

// TestListWhileCreatingKeepsOneCopy lists sessions while others are being
// created: a list's scan for other processes' sessions must never load a
// session this store is still making, which would register a second,
// unlocked copy of it (its next Open then waits for this very process, and
// the list shows it empty).
func TestListWhileCreatingKeepsOneCopy(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	stop := make(chan struct{})
	listed := make(chan struct{})
	go func() {
		defer close(listed)
		for {
			select {
			case <-stop:
				return
			default:
				s.List(storage.Filter{})
			}
		}
	}()
	var ids []string
	for range 200 {
		c, err := s.Create(storage.CreateParams{Title: "racing a list"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Append(storage.Entry{Thought: "one", NextThoughtNeeded: true}); err != nil {
			t.Fatal(err)
		}
		s.Release(c.ID())
		ids = append(ids, c.ID())
	}
	close(stop)
	<-listed
	for _, id := range ids {
		c, err := s.Open(id)
		if err != nil {
			t.Fatalf("open %s: %v", id, err)
		}
		if _, total := c.Len(); total != 1 {
			t.Errorf("%s holds %d thoughts, want 1", id, total)
		}
		s.Release(id)
	}
	for _, sess := range s.List(storage.Filter{}) {
		if sess.ThoughtCount != 1 {
			t.Errorf("list shows %s with %d thoughts", sess.ID, sess.ThoughtCount)
		}
	}
}

// TestASessionTakenBackUntouchedIsNotReadAgain: a store that gives a
// session up and opens it again, its journal untouched, does not read its
// files again, and goes on from where it was. When another store wrote
// the session meanwhile (still open, closed since, or crashed), it reads
// the session again.
func TestASessionTakenBackUntouchedIsNotReadAgain(t *testing.T) {
	base := t.TempDir()
	a := open(t, base)
	defer a.Close()
	c, err := a.Create(storage.CreateParams{Title: "a's"})
	if err != nil {
		t.Fatal(err)
	}
	id := c.ID()
	if _, err := c.Append(storage.Entry{Thought: "one"}); err != nil {
		t.Fatal(err)
	}
	a.Release(id) // no lease without a background writer: given up at once
	before := a.TakeOvers()
	c, err = a.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if a.TakeOvers() != before {
		t.Error("a read the session it gave up, untouched, again")
	}
	added, err := c.Append(storage.Entry{Thought: "two"})
	if err != nil || added.Node.Data.ThoughtNumber != 2 {
		t.Fatalf("a's append after taking the session back: %+v %v", added.Node.Data, err)
	}
	a.Release(id)

	want := 2
	for _, other := range []string{"open", "closed", "crashed"} {
		b := open(t, base)
		cb, err := b.Open(id)
		if err != nil {
			t.Fatalf("b (%s): %v", other, err)
		}
		want++
		if _, err := cb.Append(storage.Entry{Thought: "b's, " + other}); err != nil {
			t.Fatal(err)
		}
		b.Release(id)
		switch other {
		case "closed":
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
		case "crashed":
			b.Crash()
		}
		before := a.TakeOvers()
		c, err := a.Open(id)
		if err != nil {
			t.Fatalf("a after b (%s): %v", other, err)
		}
		if a.TakeOvers() != before+1 {
			t.Errorf("b %s: a did not read the session again", other)
		}
		if _, total := c.Len(); total != want {
			t.Errorf("b %s: a has %d thoughts, want %d", other, total, want)
		}
		want++
		added, err := c.Append(storage.Entry{Thought: "a's, after b " + other})
		if err != nil || added.Node.Data.ThoughtNumber != want {
			t.Fatalf("b %s: a's append: %+v %v, want thought %d", other, added.Node.Data, err, want)
		}
		a.Release(id)
		if other == "open" {
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
