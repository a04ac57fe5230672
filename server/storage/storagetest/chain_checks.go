package storagetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

func intp(n int) *int    { return &n }
func boolp(b bool) *bool { return &b }

// mustAppend appends e or fails the test.
func mustAppend(t *testing.T, c *storage.Chain, e storage.Entry) storage.Appended {
	t.Helper()
	a, err := c.Append(e)
	if err != nil {
		t.Fatalf("append %+v: %v", e, err)
	}
	return a
}

// create makes a session and appends the given thoughts; the session stays
// open (as Create leaves it) until the test ends.
func create(t *testing.T, st storage.Store, title string, tags []string, thoughts ...string) *storage.Chain {
	t.Helper()
	c, err := st.Create(storage.CreateParams{Title: title, Tags: tags})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	for _, th := range thoughts {
		mustAppend(t, c, storage.Entry{Thought: th, NextThoughtNeeded: true})
	}
	return c
}

func numbers(nodes []storage.Node) []int {
	out := make([]int, len(nodes))
	for i, n := range nodes {
		out[i] = n.Data.ThoughtNumber
	}
	return out
}

func nodeIDs(nodes []storage.Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.ID
	}
	return out
}

func (s suite) createAndGet(t *testing.T) {
	st := s.open(t, t.TempDir())
	c, err := st.Create(storage.CreateParams{Title: "First", Tags: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Release(c.ID())
	sess := c.Session()
	if sess.ID == "" || sess.ID != c.ID() || sess.Title != "First" || !slices.Equal(sess.Tags, []string{"a", "b"}) {
		t.Errorf("new session %+v", sess)
	}
	if sess.CreatedAt == "" || sess.UpdatedAt == "" || sess.ThoughtCount != 0 || sess.BranchCount != 0 {
		t.Errorf("new session times or counts %+v", sess)
	}
	got, err := st.Get(c.ID())
	if err != nil || got.ID() != c.ID() {
		t.Fatalf("get: %v %v", got, err)
	}
	if _, err := st.Get("no-such-session"); !errors.Is(err, storage.ErrSessionNotFound) {
		t.Errorf("get of an unknown id: %v, want ErrSessionNotFound", err)
	}
	if _, err := st.Open("no-such-session"); !errors.Is(err, storage.ErrSessionNotFound) {
		t.Errorf("open of an unknown id: %v, want ErrSessionNotFound", err)
	}
	untagged, err := st.Create(storage.CreateParams{Title: "untagged"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Release(untagged.ID())
	if tags := untagged.Session().Tags; tags == nil || len(tags) != 0 {
		t.Errorf("tags of a session created without tags = %#v, want an empty list", tags)
	}
	if untagged.ID() == c.ID() {
		t.Error("two sessions got the same id")
	}
}

func (s suite) ordering(t *testing.T) {
	st := s.open(t, t.TempDir())
	c := create(t, st, "order", nil)
	defer st.Release(c.ID())
	for _, n := range []int{1, 4, 2} {
		mustAppend(t, c, storage.Entry{Thought: "t", ThoughtNumber: n})
	}
	if a := mustAppend(t, c, storage.Entry{Thought: "auto"}); a.Node.Data.ThoughtNumber != 5 || !a.AutoNumbered {
		t.Errorf("auto-numbered after 4: %d (auto %v), want 5", a.Node.Data.ThoughtNumber, a.AutoNumbered)
	}
	got, err := st.Get(c.ID())
	if err != nil {
		t.Fatal(err)
	}
	if n := numbers(got.Main()); !slices.Equal(n, []int{1, 2, 4, 5}) {
		t.Errorf("main chain %v, want [1 2 4 5]", n)
	}
	if n := numbers(got.CreationOrder()); !slices.Equal(n, []int{1, 4, 2, 5}) {
		t.Errorf("creation order %v, want [1 4 2 5]", n)
	}
	if n := numbers(got.LastMain(2)); !slices.Equal(n, []int{4, 5}) {
		t.Errorf("last two %v, want [4 5]", n)
	}
	if n := numbers(got.MainRange(2, 4)); !slices.Equal(n, []int{2, 4}) {
		t.Errorf("range 2..4 %v, want [2 4]", n)
	}
	if sess := got.Session(); sess.ThoughtCount != 4 || sess.UpdatedAt < sess.CreatedAt {
		t.Errorf("session after 4 thoughts %+v", sess)
	}
}

func (s suite) links(t *testing.T) {
	st := s.open(t, t.TempDir())
	c := create(t, st, "links", nil, "one", "two", "three")
	defer st.Release(c.ID())
	checkLinearLinks(t, c, 3)
}

// checkLinearLinks checks the links of a main chain 1..n written in order.
func checkLinearLinks(t *testing.T, c *storage.Chain, n int) {
	t.Helper()
	sid := c.ID()
	main := c.Main()
	if len(main) != n {
		t.Fatalf("%d main thoughts, want %d", len(main), n)
	}
	for i, node := range main {
		if node.ID != storage.MainNodeID(sid, i+1) {
			t.Errorf("thought %d has id %s", i+1, node.ID)
		}
		if i == 0 {
			if node.Prev != nil {
				t.Errorf("first thought has prev %s", *node.Prev)
			}
		} else if node.Prev == nil || *node.Prev != main[i-1].ID {
			t.Errorf("thought %d prev = %v, want %s", i+1, node.Prev, main[i-1].ID)
		}
		if i < n-1 {
			if !slices.Contains(node.Next, main[i+1].ID) {
				t.Errorf("thought %d next = %v, want it to hold %s", i+1, node.Next, main[i+1].ID)
			}
		} else if len(node.Next) != 0 {
			t.Errorf("last thought has next %v", node.Next)
		}
		if node.Next == nil {
			t.Errorf("thought %d next is nil, want a list", i+1)
		}
	}
}

func (s suite) branches(t *testing.T) {
	st := s.open(t, t.TempDir())
	c := create(t, st, "branches", nil, "one", "two")
	defer st.Release(c.ID())
	a := mustAppend(t, c, storage.Entry{Thought: "alt one", BranchID: "alt", BranchFromThought: intp(1)})
	if !a.NewBranch || a.Node.Data.ThoughtNumber != 3 {
		t.Errorf("first branch thought: new %v number %d, want true 3", a.NewBranch, a.Node.Data.ThoughtNumber)
	}
	b := mustAppend(t, c, storage.Entry{Thought: "alt two", BranchID: "alt", BranchFromThought: intp(1)})
	if b.NewBranch || b.Node.Data.ThoughtNumber != 4 {
		t.Errorf("second branch thought: new %v number %d", b.NewBranch, b.Node.Data.ThoughtNumber)
	}
	checkBranch(t, c)
}

// checkBranch checks the session built by the Branches check.
func checkBranch(t *testing.T, c *storage.Chain) {
	t.Helper()
	sid := c.ID()
	fork := storage.MainNodeID(sid, 1)
	br := c.Branch("alt")
	if len(br) != 2 {
		t.Fatalf("branch alt has %d thoughts, want 2", len(br))
	}
	for _, n := range br {
		if n.BranchID == nil || *n.BranchID != "alt" || n.Data.BranchID != "alt" {
			t.Errorf("branch thought %s has branch %v / %q", n.ID, n.BranchID, n.Data.BranchID)
		}
		if n.BranchOrigin == nil || *n.BranchOrigin != fork {
			t.Errorf("branch thought %s origin %v, want %s", n.ID, n.BranchOrigin, fork)
		}
		if n.Prev == nil || *n.Prev != fork {
			t.Errorf("branch thought %s prev %v, want the fork %s", n.ID, n.Prev, fork)
		}
	}
	if br[0].ID != storage.BranchNodeID(sid, "alt", 3) {
		t.Errorf("branch thought id %s", br[0].ID)
	}
	one, _ := c.MainThought(1)
	for _, id := range []string{storage.MainNodeID(sid, 2), br[0].ID, br[1].ID} {
		if !slices.Contains(one.Next, id) {
			t.Errorf("fork thought next %v lacks %s", one.Next, id)
		}
	}
	infos := c.Branches()
	if len(infos) != 1 || infos[0] != (storage.BranchInfo{ID: "alt", Fork: 1, First: 3, Last: 4, Count: 2}) {
		t.Errorf("branches %+v", infos)
	}
	if sess := c.Session(); sess.ThoughtCount != 2 || sess.BranchCount != 1 {
		t.Errorf("counts %d main, %d branches, want 2 and 1", sess.ThoughtCount, sess.BranchCount)
	}
	if _, ok := c.BranchThought("alt", 4); !ok {
		t.Error("branch thought alt/4 not found")
	}
}

func (s suite) revisions(t *testing.T) {
	st := s.open(t, t.TempDir())
	c := create(t, st, "revisions", nil, "one", "two")
	defer st.Release(c.ID())
	buildRevision(t, c)
	checkRevision(t, c)
}

// buildRevision adds a revision of thought 1 and a critique of thought 2.
func buildRevision(t *testing.T, c *storage.Chain) {
	t.Helper()
	mustAppend(t, c, storage.Entry{Thought: "one, revised", IsRevision: boolp(true), RevisesThought: intp(1)})
	if err := c.SetCritique(storage.MainNodeID(c.ID(), 2), storage.Critique{Text: "check it", Model: "m", Timestamp: "2026-11-22T08:00:00.000Z"}); err != nil {
		t.Fatal(err)
	}
}

func checkRevision(t *testing.T, c *storage.Chain) {
	t.Helper()
	rev, ok := c.MainThought(3)
	if !ok {
		t.Fatal("revision thought missing")
	}
	if !rev.Data.Revision() || rev.Data.RevisesThought == nil || *rev.Data.RevisesThought != 1 {
		t.Errorf("revision data %+v", rev.Data)
	}
	if rev.RevisesNode == nil || *rev.RevisesNode != storage.MainNodeID(c.ID(), 1) {
		t.Errorf("revisesNode %v", rev.RevisesNode)
	}
	two, _ := c.MainThought(2)
	if two.Data.Critique == nil || two.Data.Critique.Text != "check it" || two.Data.Critique.Model != "m" {
		t.Errorf("critique of thought 2: %+v", two.Data.Critique)
	}
}

func (s suite) refused(t *testing.T) {
	st := s.open(t, t.TempDir())
	c := create(t, st, "refused", nil, "one")
	defer st.Release(c.ID())
	before := c.Session()
	for _, e := range []storage.Entry{
		{Thought: "dup", ThoughtNumber: 1},
		{Thought: "dangling", IsRevision: boolp(true), RevisesThought: intp(9)},
		{Thought: "no fork", BranchID: "x", BranchFromThought: intp(7)},
	} {
		var rule *storage.RuleError
		if _, err := c.Append(e); !errors.As(err, &rule) {
			t.Errorf("append %+v: %v, want a RuleError", e, err)
		}
	}
	got, _ := st.Get(c.ID())
	if _, total := got.Len(); total != 1 {
		t.Errorf("%d thoughts after refused appends, want 1", total)
	}
	if after := got.Session(); after.UpdatedAt != before.UpdatedAt || after.BranchCount != 0 {
		t.Errorf("refused appends changed the session: %+v", after)
	}
}
