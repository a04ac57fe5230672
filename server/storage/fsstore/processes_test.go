package fsstore_test

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/fsstore"
)

// look makes s's next List look for other processes' changes if it must,
// and returns the ids it lists and whether it looked.
func look(s *fsstore.Store) ([]string, bool) {
	before := s.Looks()
	s.RescanNow()
	var ids []string
	for _, sess := range s.List(storage.Filter{}) {
		ids = append(ids, sess.ID)
	}
	slices.Sort(ids)
	return ids, s.Looks() > before
}

// TestAStoreAloneSkipsTheLook checks the register of open stores: a store
// alone on its data directory stops looking once it has looked alone; a
// second store makes it look again, and it lists what that store wrote,
// also after the second store is gone, and then stops again.
func TestAStoreAloneSkipsTheLook(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the register needs open file description locks (Linux): elsewhere every look runs")
	}
	base := t.TempDir()
	a := open(t, base)
	defer a.Close()
	if _, err := a.Create(storage.CreateParams{Title: "a's"}); err != nil {
		t.Fatal(err)
	}
	if _, looked := look(a); !looked {
		t.Fatal("a's first look was skipped")
	}
	for i := range 3 {
		if _, looked := look(a); looked {
			t.Fatalf("a alone looked again (look %d)", i+2)
		}
	}

	b := open(t, base)
	c, err := b.Create(storage.CreateParams{Title: "b's"})
	if err != nil {
		t.Fatal(err)
	}
	ids, looked := look(a)
	if !looked || len(ids) != 2 || !slices.Contains(ids, c.ID()) {
		t.Fatalf("with b open: a looked %v and lists %v, want a look and b's %s among 2", looked, ids, c.ID())
	}
	if _, looked := look(a); !looked {
		t.Fatal("a skipped a look while b is open")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, looked := look(a); !looked {
		t.Fatal("a skipped its first look after b closed")
	}
	if _, looked := look(a); looked {
		t.Fatal("a looked again, alone since its last look")
	}
}

// TestAStoreThatCameAndWentIsSeen opens, writes and closes a second store
// entirely between two looks of the first (as a process that runs one
// command would): the count of stores opened moved, so the first looks
// and lists the new session with its thought. A store that dies (Crash,
// as by kill -9) leaves the register too.
func TestAStoreThatCameAndWentIsSeen(t *testing.T) {
	base := t.TempDir()
	a := open(t, base)
	defer a.Close()
	look(a)
	look(a)
	for _, end := range []string{"closed", "crashed"} {
		b := open(t, base)
		c, err := b.Create(storage.CreateParams{Title: "b's, " + end})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Append(storage.Entry{Thought: "one"}); err != nil {
			t.Fatal(err)
		}
		if end == "closed" {
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
		} else {
			if err := b.Flush(c.ID()); err != nil {
				t.Fatal(err)
			}
			b.Crash()
		}
		ids, looked := look(a)
		if !looked || !slices.Contains(ids, c.ID()) {
			t.Fatalf("b %s: a looked %v and lists %v, want a look and %s", end, looked, ids, c.ID())
		}
		if runtime.GOOS == "linux" {
			if _, looked := look(a); looked {
				t.Fatalf("b %s: a looked again, alone since", end)
			}
		}
	}
}

// TestAStoreThatDidNotCountItselfInIsSeen holds a store's read lock on the
// register without counting in (as a store whose count could not be
// written): a store alone until then looks while that lock is held.
func TestAStoreThatDidNotCountItselfInIsSeen(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the register needs open file description locks (Linux)")
	}
	base := t.TempDir()
	a := open(t, base)
	defer a.Close()
	look(a)
	if _, looked := look(a); looked {
		t.Fatal("a alone looked again")
	}
	f, err := os.OpenFile(filepath.Join(base, "projects", "_default", "processes"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	lk := unix.Flock_t{Type: unix.F_RDLCK, Whence: io.SeekStart, Start: 0, Len: 1}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
		t.Fatal(err)
	}
	if _, looked := look(a); !looked {
		t.Error("a skipped its look while another store held the register's lock")
	}
	f.Close()
	look(a)
	if _, looked := look(a); looked {
		t.Error("a looked again, alone since")
	}
}
