package fsstore

import (
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/sysfile"
)

// syncProbe replaces a session's fsync: it records how many ran and up to
// which sequence number the journal is synced.
type syncProbe struct {
	sf     *sessionFiles
	calls  atomic.Int64
	synced atomic.Int64
}

func (p *syncProbe) sync() error {
	p.sf.mu.Lock()
	seq := p.sf.seq
	p.sf.mu.Unlock()
	time.Sleep(2 * time.Millisecond) // a disk flush takes time
	p.calls.Add(1)
	p.synced.Store(int64(seq))
	return nil
}

func probeStore(t *testing.T, d Durability) (*Store, *storage.Chain, *syncProbe) {
	t.Helper()
	s, err := Open(t.TempDir(), "_default", WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), WithDurability(d))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c, err := s.Create(storage.CreateParams{Title: "durable"})
	if err != nil {
		t.Fatal(err)
	}
	sf := s.filesOf(c.ID())
	p := &syncProbe{sf: sf}
	if sf.commit != nil {
		sf.commit.flush = p.sync
	}
	return s, c, p
}

// TestBatchAcknowledgesAfterItsFsync appends from 8 writers at once with
// THOUGHTBOX_FSYNC=batch: every append returns only once an fsync covering
// its journal line has completed, and concurrent appends share fsyncs.
func TestBatchAcknowledgesAfterItsFsync(t *testing.T) {
	_, c, p := probeStore(t, DurabilityBatch)
	var wg sync.WaitGroup
	const writers, each = 8, 25
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				a, err := c.Append(storage.Entry{Thought: "t"})
				if err != nil {
					t.Error(err)
					return
				}
				// The node's record sequence number: the session record is 1.
				seq := int64(a.Node.Data.ThoughtNumber) + 1
				if synced := p.synced.Load(); synced < seq {
					t.Errorf("thought %d acknowledged with the journal synced up to record %d only", a.Node.Data.ThoughtNumber, synced)
				}
			}
		}()
	}
	wg.Wait()
	if calls := p.calls.Load(); calls == 0 || calls >= writers*each {
		t.Errorf("%d fsyncs for %d appends: no group commit", calls, writers*each)
	}
	t.Logf("%d appends, %d fsyncs", writers*each, p.calls.Load())
}

// TestAlwaysSyncsEveryChange checks THOUGHTBOX_FSYNC=always syncs the
// journal once per append, before it returns, and off never does.
func TestAlwaysSyncsEveryChange(t *testing.T) {
	for _, d := range []Durability{DurabilityAlways, DurabilityOff} {
		s, c, _ := probeStore(t, d)
		var calls atomic.Int64
		sf := s.filesOf(c.ID())
		sf.mu.Lock()
		before := sf.seq
		sf.mu.Unlock()
		syncJournal = func(*sessionFiles) error { calls.Add(1); return nil }
		for i := 0; i < 10; i++ {
			if _, err := c.Append(storage.Entry{Thought: "t"}); err != nil {
				t.Fatal(err)
			}
		}
		syncJournal = (*sessionFiles).fsyncJournal
		want := int64(0)
		if d == DurabilityAlways {
			want = 10
		}
		if got := calls.Load(); got != want {
			t.Errorf("%s: %d fsyncs for 10 appends after record %d, want %d", d, got, before, want)
		}
	}
}

// TestAJournalLineCutShortIsTakenBack: an append that writes part of its
// line and fails (a full disk) is refused and leaves nothing of the line
// behind, so the next append starts a line of its own: a store that reads
// the session anew finds every acknowledged thought and no damage.
func TestAJournalLineCutShortIsTakenBack(t *testing.T) {
	dir := t.TempDir()
	s := slotStore(t, dir)
	c, err := s.Create(storage.CreateParams{Title: "cut short"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Append(storage.Entry{Thought: "one"}); err != nil {
		t.Fatal(err)
	}
	testHookJournalWrite = func(fd int, path string, data []byte) (int, error) {
		n, _ := sysfile.WriteN(fd, path, data[:len(data)/2])
		return n, &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
	}
	_, err = c.Append(storage.Entry{Thought: "two, cut short"})
	testHookJournalWrite = nil
	if err == nil {
		t.Fatal("an append whose line was cut short was acknowledged")
	}
	if _, err := c.Append(storage.Entry{Thought: "two"}); err != nil {
		t.Fatal(err)
	}
	s.Release(c.ID())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := slotStore(t, dir)
	cr, err := r.Get(c.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, total := cr.Len(); total != 2 || len(r.Damaged()) != 0 {
		t.Fatalf("read anew: %d thoughts, damage %v; want 2 and none", total, r.Damaged())
	}
	if res := r.Integrity(c.ID()); !res.Valid {
		t.Fatalf("read anew: %+v", res)
	}
}
