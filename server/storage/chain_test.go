package storage_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

func newChain() *storage.Chain {
	clock := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	return storage.NewChain(storage.Session{ID: "s", Title: "t"}, nil, func() time.Time {
		clock = clock.Add(time.Millisecond)
		return clock
	})
}

func intp(n int) *int    { return &n }
func boolp(b bool) *bool { return &b }

func mustAppend(t *testing.T, c *storage.Chain, e storage.Entry) storage.Appended {
	t.Helper()
	a, err := c.Append(e)
	if err != nil {
		t.Fatalf("append %+v: %v", e, err)
	}
	return a
}

func ids(nodes []storage.Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.ID
	}
	return out
}

func TestAutoNumberingAndTotals(t *testing.T) {
	c := newChain()
	a := mustAppend(t, c, storage.Entry{Thought: "a", NextThoughtNeeded: true})
	if a.Node.Data.ThoughtNumber != 1 || a.Node.Data.TotalThoughts != 1 || !a.AutoNumbered {
		t.Fatalf("first auto thought: %+v", a.Node.Data)
	}
	b := mustAppend(t, c, storage.Entry{Thought: "b", ThoughtNumber: 5, TotalThoughts: 3})
	if b.Node.Data.TotalThoughts != 5 {
		t.Errorf("totalThoughts below the number was not raised: %d", b.Node.Data.TotalThoughts)
	}
	if n := mustAppend(t, c, storage.Entry{Thought: "c"}).Node.Data.ThoughtNumber; n != 6 {
		t.Errorf("auto number after 5 = %d, want 6", n)
	}
	// Auto-numbered branch thoughts start after the main chain and then
	// continue inside their branch; the main chain is not advanced by them.
	x := mustAppend(t, c, storage.Entry{Thought: "x", BranchID: "alt", BranchFromThought: intp(1)})
	y := mustAppend(t, c, storage.Entry{Thought: "y", BranchID: "alt", BranchFromThought: intp(1)})
	z := mustAppend(t, c, storage.Entry{Thought: "z"})
	if x.Node.Data.ThoughtNumber != 7 || y.Node.Data.ThoughtNumber != 8 || z.Node.Data.ThoughtNumber != 7 {
		t.Errorf("numbers x=%d y=%d z=%d, want 7 8 7", x.Node.Data.ThoughtNumber, y.Node.Data.ThoughtNumber, z.Node.Data.ThoughtNumber)
	}
	if !x.NewBranch || y.NewBranch {
		t.Errorf("NewBranch x=%v y=%v", x.NewBranch, y.NewBranch)
	}
	s := c.Session()
	if s.ThoughtCount != 4 || s.BranchCount != 1 {
		t.Errorf("counts %d/%d, want 4/1", s.ThoughtCount, s.BranchCount)
	}
}

func TestLinksFollowCreationOrder(t *testing.T) {
	c := newChain()
	for _, n := range []int{5, 4, 3} {
		mustAppend(t, c, storage.Entry{Thought: "t", ThoughtNumber: n})
	}
	mustAppend(t, c, storage.Entry{Thought: "b", BranchID: "b", BranchFromThought: intp(4)})
	mustAppend(t, c, storage.Entry{Thought: "r", IsRevision: boolp(true), RevisesThought: intp(5)})
	nodes := c.Nodes()
	if got := ids(nodes); !slices.Equal(got, []string{"s:3", "s:4", "s:5", "s:b:6", "s:6"}) {
		t.Fatalf("export order %v", got)
	}
	byID := map[string]storage.Node{}
	for _, n := range nodes {
		byID[n.ID] = n
	}
	check := func(id string, prev string, next ...string) {
		t.Helper()
		n := byID[id]
		p := ""
		if n.Prev != nil {
			p = *n.Prev
		}
		if p != prev || !slices.Equal(n.Next, append([]string{}, next...)) {
			t.Errorf("%s: prev %q next %v, want %q %v", id, p, n.Next, prev, next)
		}
	}
	check("s:5", "", "s:4")
	check("s:4", "s:5", "s:3", "s:b:6")
	check("s:3", "s:4", "s:6")
	check("s:b:6", "s:4")
	check("s:6", "s:3")
	if r := byID["s:6"].RevisesNode; r == nil || *r != "s:5" {
		t.Errorf("revisesNode %v", r)
	}
	if o := byID["s:b:6"].BranchOrigin; o == nil || *o != "s:4" {
		t.Errorf("branchOrigin %v", o)
	}
	if got := ids(c.Main()); !slices.Equal(got, []string{"s:3", "s:4", "s:5", "s:6"}) {
		t.Errorf("main chain %v", got)
	}
	if got := ids(c.LastMain(2)); !slices.Equal(got, []string{"s:5", "s:6"}) {
		t.Errorf("last 2 %v", got)
	}
	if got := ids(c.MainRange(4, 5)); !slices.Equal(got, []string{"s:4", "s:5"}) {
		t.Errorf("range 4-5 %v", got)
	}
}

func TestRulesRejectWithoutChanges(t *testing.T) {
	c := newChain()
	mustAppend(t, c, storage.Entry{Thought: "one"})
	before := c.Nodes()
	for name, e := range map[string]storage.Entry{
		"duplicate":           {Thought: "x", ThoughtNumber: 1},
		"fork from nothing":   {Thought: "x", BranchID: "a", BranchFromThought: intp(9)},
		"fork without branch": {Thought: "x", BranchFromThought: intp(1)},
		"revise nothing":      {Thought: "x", RevisesThought: intp(3)},
		"revise itself":       {Thought: "x", ThoughtNumber: 2, RevisesThought: intp(2)},
		"flag only":           {Thought: "x", IsRevision: boolp(true)},
	} {
		_, err := c.Append(e)
		var rule *storage.RuleError
		if !errors.As(err, &rule) {
			t.Errorf("%s: got %v, want a rule error", name, err)
		}
	}
	if after := c.Nodes(); len(after) != len(before) || len(after[0].Next) != 0 {
		t.Errorf("rejected thoughts changed the chain: %+v", after)
	}
}

type failingPersister struct{ calls int }

func (f *failingPersister) Append(*storage.Session, *storage.Node, *storage.Node) error {
	f.calls++
	return errors.New("disk full")
}
func (f *failingPersister) Rewrite(*storage.Session, *storage.Node) error { return nil }
func (f *failingPersister) Update(*storage.Session) error                 { return nil }

func TestPersistFailureLeavesChainUnchanged(t *testing.T) {
	p := &failingPersister{}
	c := storage.NewChain(storage.Session{ID: "s"}, p, nil)
	if _, err := c.Append(storage.Entry{Thought: "x"}); err == nil || p.calls != 1 {
		t.Fatalf("append with a failing disk: err=%v calls=%d", err, p.calls)
	}
	if main, total := c.Len(); main != 0 || total != 0 || c.Session().ThoughtCount != 0 {
		t.Errorf("chain changed: %d %d", main, total)
	}
}

func TestRegistryListOrderAndFilters(t *testing.T) {
	reg := storage.NewRegistry()
	for _, s := range []storage.Session{
		{ID: "a", Title: "Alpha", Tags: []string{"x"}, UpdatedAt: "2026-01-01T00:00:00.000Z"},
		{ID: "b", Title: "Beta", Tags: []string{"y"}, UpdatedAt: "2026-01-03T00:00:00.000Z"},
		{ID: "c", Title: "Gamma", Tags: []string{"x", "y"}, UpdatedAt: "2026-01-02T00:00:00.000Z"},
	} {
		reg.Add(storage.NewChain(s, nil, nil))
	}
	names := func(ss []storage.Session) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.ID)
		}
		return out
	}
	if got := names(reg.List(storage.Filter{})); !slices.Equal(got, []string{"b", "c", "a"}) {
		t.Errorf("order %v", got)
	}
	if got := names(reg.List(storage.Filter{AnyTags: []string{"x"}})); !slices.Equal(got, []string{"c", "a"}) {
		t.Errorf("tag x %v", got)
	}
	if got := names(reg.List(storage.Filter{Search: "AMM"})); !slices.Equal(got, []string{"c"}) {
		t.Errorf("search %v", got)
	}
	if _, err := reg.Get("zz"); !errors.Is(err, storage.ErrSessionNotFound) {
		t.Errorf("missing id: %v", err)
	}
}
