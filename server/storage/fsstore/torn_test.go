package fsstore_test

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/fsstore"
)

// syncBuffer is a log destination the tests read.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestTornLastRecordAtEveryOffset truncates the journal at every byte offset
// of its last record and starts a store on it: no panic, every complete
// record is loaded, the torn one is dropped and reported, and the next
// append starts a line of its own (an append after the fragment used to
// make a corrupt line in the middle of the journal).
func TestTornLastRecordAtEveryOffset(t *testing.T) {
	base := t.TempDir()
	s := open(t, base)
	c, dir := build(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(dir, "journal.jsonl")
	full, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	lastStart := bytes.LastIndexByte(full[:len(full)-1], '\n') + 1
	for cut := lastStart; cut < len(full); cut++ {
		if err := os.WriteFile(journal, full[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(dir, "manifest.json"))
		var log syncBuffer
		s2, err := fsstore.Open(base, "_default", fsstore.WithLogger(slog.New(slog.NewTextHandler(&log, nil))), fsstore.WithFlushInterval(0))
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		c2, err := s2.Open(c.ID())
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if _, total := c2.Len(); total != 3 {
			t.Errorf("cut at %d: %d thoughts loaded, want the 3 complete ones", cut, total)
		}
		torn := cut > lastStart
		if reported := strings.Contains(log.String(), "torn last line"); reported != torn {
			t.Errorf("cut at %d: torn line reported %v, want %v\n%s", cut, reported, torn, log.String())
		}
		if len(s2.Damaged()) != 0 {
			t.Errorf("cut at %d: damaged %v", cut, s2.Damaged())
		}
		if _, err := c2.Append(storage.Entry{Thought: "after"}); err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		s2.Release(c.ID())
		if err := s2.Close(); err != nil {
			t.Fatal(err)
		}
		s3 := open(t, base)
		c3, err := s3.Get(c.ID())
		if err != nil || len(s3.Damaged()) != 0 {
			t.Fatalf("cut at %d, after an append: %v %v", cut, err, s3.Damaged())
		}
		if _, total := c3.Len(); total != 4 {
			t.Errorf("cut at %d, after an append: %d thoughts, want 4", cut, total)
		}
		s3.Close()
	}
}

// fsstoreOpen opens a store with the default background writer, quietly.
func fsstoreOpen(dir string) (*fsstore.Store, error) {
	return fsstore.Open(dir, "_default", quiet())
}
