package storagetest

import (
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// eventually retries check until it returns "" or 10 s have passed; a store
// may see another store's change only once that one's lease on it ends.
func eventually(t *testing.T, what string, check func() string) {
	t.Helper()
	var last string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if last = check(); last == "" {
			return
		}
	}
	t.Fatalf("%s: %s", what, last)
}

// openEventually opens id in st, retrying while another store holds it.
func openEventually(t *testing.T, st storage.Store, id string) *storage.Chain {
	t.Helper()
	var c *storage.Chain
	eventually(t, "open a session the other store released", func() string {
		var err error
		if c, err = st.Open(id); err != nil {
			if errors.Is(err, storage.ErrSessionBusy) {
				return err.Error()
			}
			t.Fatalf("open: %v", err)
		}
		return ""
	})
	return c
}

func (s suite) exclusive(t *testing.T) {
	dir := t.TempDir()
	a := s.open(t, dir)
	b := s.open(t, dir)
	c := create(t, a, "shared", nil, "one")
	var busy *storage.BusyError
	if _, err := b.Open(c.ID()); !errors.As(err, &busy) || !errors.Is(err, storage.ErrSessionBusy) {
		t.Fatalf("b opened a session a has open: %v", err)
	}
	if busy.SessionID != c.ID() || (busy.PID != 0 && busy.PID != os.Getpid()) {
		t.Errorf("busy error names session %q and pid %d", busy.SessionID, busy.PID)
	}
	a.Release(c.ID())
	cb := openEventually(t, b, c.ID())
	added := mustAppend(t, cb, storage.Entry{Thought: "two"})
	if added.Node.Data.ThoughtNumber != 2 {
		t.Errorf("b's first thought numbered %d, want 2 (after a's)", added.Node.Data.ThoughtNumber)
	}
	if _, err := a.Open(c.ID()); !errors.As(err, &busy) {
		t.Fatalf("a opened the session b has open: %v", err)
	}
	b.Release(c.ID())
	ca := openEventually(t, a, c.ID())
	defer a.Release(c.ID())
	if added := mustAppend(t, ca, storage.Entry{Thought: "three"}); added.Node.Data.ThoughtNumber != 3 {
		t.Errorf("a's thought after b's numbered %d, want 3", added.Node.Data.ThoughtNumber)
	}
	checkLinearLinks(t, ca, 3)
}

func (s suite) readersSee(t *testing.T) {
	dir := t.TempDir()
	a := s.open(t, dir)
	b := s.open(t, dir)
	c := create(t, a, "written by a", []string{"from-a"}, "one")
	defer a.Release(c.ID())
	eventually(t, "b lists the session a created", func() string {
		if got := sessionIDs(b.List(storage.Filter{AnyTags: []string{"from-a"}})); !slices.Equal(got, []string{c.ID()}) {
			return "b lists " + stringList(got)
		}
		return ""
	})
	mustAppend(t, c, storage.Entry{Thought: "two"})
	mustAppend(t, c, storage.Entry{Thought: "alt", BranchID: "alt", BranchFromThought: intp(1)})
	eventually(t, "b reads what a appended", func() string {
		cb, err := b.Get(c.ID())
		if err != nil {
			return err.Error()
		}
		if m, total := cb.Len(); m != 2 || total != 3 {
			return "b reads " + stringList(nodeIDs(cb.CreationOrder()))
		}
		return ""
	})
	cb, _ := b.Get(c.ID())
	checkLinearLinks(t, cb, 2)
	if sess := cb.Session(); sess.ThoughtCount != 2 || sess.BranchCount != 1 || sess.Title != "written by a" {
		t.Errorf("b's view of the session %+v", sess)
	}
	eventually(t, "b's List counts a's thoughts", func() string {
		got := b.List(storage.Filter{AnyTags: []string{"from-a"}})
		if len(got) != 1 || got[0].ThoughtCount != 2 || got[0].BranchCount != 1 {
			return "b lists " + stringList(sessionIDs(got))
		}
		return ""
	})
}

// listFollows checks that a page of List puts first the session another
// store wrote last.
func (s suite) listFollows(t *testing.T) {
	dir := t.TempDir()
	a := s.open(t, dir)
	b := s.open(t, dir)
	older := create(t, a, "older", nil, "one")
	defer a.Release(older.ID())
	time.Sleep(5 * time.Millisecond) // a later update time, not a tie
	newer := create(t, a, "newer", nil, "one")
	defer a.Release(newer.ID())
	first := func(want *storage.Chain) func() string {
		return func() string {
			page := sessionIDs(b.List(storage.Filter{Limit: 1}))
			all := sessionIDs(b.List(storage.Filter{}))
			if !slices.Equal(page, []string{want.ID()}) || len(all) != 2 || all[0] != want.ID() {
				return "b lists " + stringList(page) + " first of " + stringList(all)
			}
			return ""
		}
	}
	eventually(t, "b lists first the session a created last", first(newer))
	time.Sleep(5 * time.Millisecond)
	mustAppend(t, older, storage.Entry{Thought: "two"})
	eventually(t, "b lists first the session a wrote last", first(older))
}

func stringList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}
