package storagetest

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// tick waits until the millisecond clock of timestamps has moved on, so
// that the next change gets a later UpdatedAt than the last.
func tick() { time.Sleep(3 * time.Millisecond) }

func sessionIDs(list []storage.Session) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.ID
	}
	return out
}

func (s suite) list(t *testing.T) {
	st := s.open(t, t.TempDir())
	a := create(t, st, "Alpha plan", []string{"project:x", "red"}, "a1")
	tick()
	b := create(t, st, "beta", []string{"project:y"}, "b1")
	tick()
	c := create(t, st, "Gamma", []string{"Blue-Team"}, "c1")
	for _, ch := range []*storage.Chain{a, b, c} {
		defer st.Release(ch.ID())
	}
	tick()
	mustAppend(t, a, storage.Entry{Thought: "a2"}) // a is now the most recent
	want := func(name string, f storage.Filter, ids ...string) {
		t.Helper()
		if got := sessionIDs(st.List(f)); !slices.Equal(got, ids) {
			t.Errorf("%s: %v, want %v", name, got, ids)
		}
	}
	want("all, most recently updated first", storage.Filter{}, a.ID(), c.ID(), b.ID())
	want("limit", storage.Filter{Limit: 2}, a.ID(), c.ID())
	want("any tag", storage.Filter{AnyTags: []string{"project:y", "blue-team", "red"}}, a.ID(), b.ID())
	want("search in titles, case-insensitive", storage.Filter{Search: "ALPHA"}, a.ID())
	want("search in tags", storage.Filter{Search: "team"}, c.ID())
	want("search and tag", storage.Filter{Search: "a", AnyTags: []string{"project:x", "project:y"}}, a.ID(), b.ID())
	want("no match", storage.Filter{Search: "nothing like it"})
	got := st.List(storage.Filter{Search: "alpha"})
	if len(got) == 1 {
		g := got[0]
		if g.Title != "Alpha plan" || !slices.Equal(g.Tags, []string{"project:x", "red"}) || g.ThoughtCount != 2 || g.BranchCount != 0 {
			t.Errorf("listed session %+v", g)
		}
		if g.UpdatedAt != a.Session().UpdatedAt {
			t.Errorf("listed updatedAt %s, session's %s", g.UpdatedAt, a.Session().UpdatedAt)
		}
	}
}

func (s suite) concurrency(t *testing.T) {
	st := s.open(t, t.TempDir())
	const writers, each = 6, 15
	shared := create(t, st, "shared", []string{"shared"})
	defer st.Release(shared.ID())
	var wg sync.WaitGroup
	errs := make(chan error, writers*each*2)
	own := make([]string, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c, err := st.Create(storage.CreateParams{Title: fmt.Sprintf("writer %d", w), Tags: []string{"w"}})
			if err != nil {
				errs <- err
				return
			}
			defer st.Release(c.ID())
			own[w] = c.ID()
			for i := 0; i < each; i++ {
				if _, err := c.Append(storage.Entry{Thought: fmt.Sprintf("w%d-%d", w, i)}); err != nil {
					errs <- err
				}
				if _, err := shared.Append(storage.Entry{Thought: fmt.Sprintf("shared w%d-%d", w, i)}); err != nil {
					errs <- err
				}
			}
		}(w)
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Add(1)
	go func() {
		defer readers.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, sess := range st.List(storage.Filter{Limit: 5}) {
				if c, err := st.Get(sess.ID); err == nil {
					_ = c.Main()
					_ = c.Branches()
				}
			}
		}
	}()
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, err := st.Get(shared.ID())
	if err != nil {
		t.Fatal(err)
	}
	if n := numbers(got.Main()); len(n) != writers*each || n[0] != 1 || n[len(n)-1] != writers*each {
		t.Errorf("shared session numbers %d..%d (%d thoughts), want 1..%d", n[0], n[len(n)-1], len(n), writers*each)
	}
	checkLinearLinks(t, got, writers*each)
	for _, id := range own {
		c, err := st.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if m, _ := c.Len(); m != each {
			t.Errorf("session %s has %d thoughts, want %d", id, m, each)
		}
	}
	if n := len(st.List(storage.Filter{AnyTags: []string{"w"}})); n != writers {
		t.Errorf("%d writer sessions listed, want %d", n, writers)
	}
}

func (s suite) closeTwice(t *testing.T) {
	st := s.newStore(t, t.TempDir())
	c := create(t, st, "close", nil, "one")
	st.Release(c.ID())
	if err := st.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}

// snapshot is what a restart must keep of a session.
type snapshot struct {
	Title, CreatedAt, UpdatedAt, LastAccessedAt string
	Tags                                        []string
	Thoughts, Branches                          int
	Nodes                                       []storage.Node
}

func snap(c *storage.Chain) snapshot {
	sess := c.Session()
	return snapshot{Title: sess.Title, CreatedAt: sess.CreatedAt, UpdatedAt: sess.UpdatedAt, LastAccessedAt: sess.LastAccessedAt, Tags: sess.Tags,
		Thoughts: sess.ThoughtCount, Branches: sess.BranchCount, Nodes: c.CreationOrder()}
}

func (s suite) restart(t *testing.T) {
	dir := t.TempDir()
	st := s.newStore(t, dir)
	c := create(t, st, "kept", []string{"k1", "k2"}, "one", "two")
	mustAppend(t, c, storage.Entry{Thought: "alt one", BranchID: "alt", BranchFromThought: intp(1)})
	mustAppend(t, c, storage.Entry{Thought: "alt two", BranchID: "alt", BranchFromThought: intp(1)})
	before := snap(c)
	tick()
	other := create(t, st, "other", nil, "x", "y")
	buildRevision(t, other)
	beforeOther := snap(other)
	st.Release(c.ID())
	st.Release(other.ID())
	order := sessionIDs(st.List(storage.Filter{}))
	if err := st.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	st2 := s.open(t, dir)
	if got := sessionIDs(st2.List(storage.Filter{})); !slices.Equal(got, order) {
		t.Errorf("after restart List gives %v, before %v", got, order)
	}
	for _, w := range []struct {
		id   string
		want snapshot
	}{{c.ID(), before}, {other.ID(), beforeOther}} {
		got, err := st2.Get(w.id)
		if err != nil {
			t.Fatalf("get after restart: %v", err)
		}
		if g := snap(got); !reflect.DeepEqual(g, w.want) {
			t.Errorf("session %s after restart:\n got %+v\nwant %+v", w.id, g, w.want)
		}
	}
	got, _ := st2.Get(c.ID())
	checkLinearLinks(t, got, 2)
	checkBranch(t, got)
	o, _ := st2.Get(other.ID())
	checkRevision(t, o)
}

func (s suite) restartContinues(t *testing.T) {
	dir := t.TempDir()
	st := s.newStore(t, dir)
	c := create(t, st, "continued", nil, "one", "two")
	st.Release(c.ID())
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2 := s.open(t, dir)
	c2, err := st2.Open(c.ID())
	if err != nil {
		t.Fatalf("open after restart: %v", err)
	}
	defer st2.Release(c.ID())
	if a := mustAppend(t, c2, storage.Entry{Thought: "three"}); a.Node.Data.ThoughtNumber != 3 {
		t.Errorf("first thought after restart numbered %d, want 3", a.Node.Data.ThoughtNumber)
	}
	checkLinearLinks(t, c2, 3)
	if n := c2.Session().ThoughtCount; n != 3 {
		t.Errorf("thought count %d, want 3", n)
	}
}
