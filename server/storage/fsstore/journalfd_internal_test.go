package fsstore

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// openFD reports whether fd is an open descriptor of this process.
func openFD(fd int) bool {
	var st syscall.Stat_t
	return fd >= 0 && syscall.Fstat(fd, &st) == nil
}

// TestTheJournalStaysOpenWhileOwned: the journal's descriptor is opened by
// the first append of an owned session and kept for the next ones, every
// line lands in the journal in order, and the descriptor is closed when
// the session is given up, before its lock. Another process then appends
// to the same journal. Past maxOpenJournals a journal is closed after each
// append.
func TestTheJournalStaysOpenWhileOwned(t *testing.T) {
	base := t.TempDir()
	s := openQuiet(t, base)
	defer s.Close()
	before := openJournals.Load()
	c, err := s.Create(storage.CreateParams{Title: "fd"})
	if err != nil {
		t.Fatal(err)
	}
	sf := s.filesOf(c.ID())
	sf.mu.Lock()
	fd := sf.jfd
	sf.mu.Unlock()
	if !openFD(fd) || openJournals.Load() != before+1 {
		t.Fatalf("after Create: descriptor %d open %v, %d journals open (were %d)", fd, openFD(fd), openJournals.Load(), before)
	}
	for _, th := range []string{"one", "two", "three"} {
		if _, err := c.Append(storage.Entry{Thought: th, NextThoughtNeeded: true}); err != nil {
			t.Fatal(err)
		}
	}
	sf.mu.Lock()
	same := sf.jfd == fd
	sf.mu.Unlock()
	if !same {
		t.Fatal("the journal was opened again for an append")
	}
	s.Release(c.ID())
	sf.mu.Lock()
	closed, owned := sf.jfd, sf.owned
	sf.mu.Unlock()
	if closed != -1 || owned || openFD(fd) || openJournals.Load() != before {
		t.Fatalf("after Release: descriptor %d (was %d, open %v), owned %v, %d journals open", closed, fd, openFD(fd), owned, openJournals.Load())
	}

	other := openQuiet(t, base)
	defer other.Close()
	w, err := other.Open(c.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(storage.Entry{Thought: "four", NextThoughtNeeded: false}); err != nil {
		t.Fatal(err)
	}
	other.Release(c.ID())
	data, err := os.ReadFile(filepath.Join(sf.dir, journalName))
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range []string{`"one"`, `"two"`, `"three"`, `"four"`} {
		if !bytes.Contains(data, []byte(th)) {
			t.Fatalf("journal lacks %s:\n%s", th, data)
		}
	}
	if !(bytes.Index(data, []byte(`"one"`)) < bytes.Index(data, []byte(`"two"`)) &&
		bytes.Index(data, []byte(`"three"`)) < bytes.Index(data, []byte(`"four"`))) {
		t.Fatalf("journal out of order:\n%s", data)
	}

	openJournals.Add(maxOpenJournals)
	defer openJournals.Add(-maxOpenJournals)
	c2, err := s.Create(storage.CreateParams{Title: "many"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Append(storage.Entry{Thought: "x", NextThoughtNeeded: true}); err != nil {
		t.Fatal(err)
	}
	sf2 := s.filesOf(c2.ID())
	sf2.mu.Lock()
	kept := sf2.jfd
	sf2.mu.Unlock()
	if kept != -1 {
		t.Fatalf("past %d open journals a journal was kept open (%d)", maxOpenJournals, kept)
	}
	s.Release(c2.ID())
}
