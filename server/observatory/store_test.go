package observatory

import (
	"fmt"
	"strings"
	"testing"
)

func ids(s *store) string { return strings.Join(s.order, ",") }

func TestStoreEvictsOldestCompletedFirst(t *testing.T) {
	s := newStore(3, 1<<20)
	for i := 1; i <= 3; i++ {
		s.start(Session{ID: fmt.Sprint("s", i), Status: StatusActive})
	}
	s.complete("s2", "now")
	s.start(Session{ID: "s4", Status: StatusActive})
	if ids(s) != "s1,s3,s4" {
		t.Errorf("after a 4th session: %s, want s2 (completed) evicted", ids(s))
	}
	s.start(Session{ID: "s5", Status: StatusActive})
	if ids(s) != "s3,s4,s5" || s.evicted != 2 {
		t.Errorf("with none completed: %s (%d evicted), want the oldest evicted", ids(s), s.evicted)
	}
	s.start(Session{ID: "s5", Title: "again"})
	if ids(s) != "s3,s4,s5" || s.sessions["s5"].session.Title != "" {
		t.Errorf("a known session started again changed the store: %s", ids(s))
	}
	if s.add("gone", Thought{ThoughtNumber: 1}) != unknown {
		t.Error("a thought of an unknown session was stored")
	}
}

func TestStoreKeepsWithinBytes(t *testing.T) {
	s := newStore(100, 100)
	s.start(Session{ID: "a", Status: StatusActive})
	s.add("a", Thought{Thought: strings.Repeat("x", 60)})
	s.start(Session{ID: "b", Status: StatusActive})
	s.add("b", Thought{Thought: strings.Repeat("y", 60)})
	if ids(s) != "b" || s.bytes != 60 {
		t.Errorf("store %s holding %d bytes, want only b (60)", ids(s), s.bytes)
	}
	// The session written to is never evicted; alone over the bound, it
	// keeps what it has.
	if r := s.add("b", Thought{Thought: strings.Repeat("z", 60)}); r != full || ids(s) != "b" || len(s.sessions["b"].thoughts) != 1 || s.bytes != 60 {
		t.Errorf("add over the bound: %d, store %s with %d bytes", r, ids(s), s.bytes)
	}
	if r := s.add("b", Thought{Thought: strings.Repeat("z", 40)}); r != stored || s.bytes != 100 {
		t.Errorf("add within the bound: %d, %d bytes", r, s.bytes)
	}
}

func TestStoreListPages(t *testing.T) {
	s := newStore(10, 1<<20)
	for i := 1; i <= 5; i++ {
		s.start(Session{ID: fmt.Sprint("s", i), Status: StatusActive})
	}
	s.complete("s4", "now")
	got := func(l []Session) string {
		var out []string
		for _, x := range l {
			out = append(out, x.ID)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		status        string
		limit, offset int
		want          string
	}{
		{"", 50, 0, "s5,s4,s3,s2,s1"},
		{"all", 2, 1, "s4,s3"},
		{StatusActive, 50, 1, "s3,s2,s1"},
		{StatusCompleted, 50, 0, "s4"},
		{StatusAbandoned, 50, 0, ""},
		{"", 0, 0, ""},
	} {
		if g := got(s.list(c.status, c.limit, c.offset)); g != c.want {
			t.Errorf("list(%q, %d, %d) = %s, want %s", c.status, c.limit, c.offset, g, c.want)
		}
	}
	if s.active() != 4 {
		t.Errorf("%d active, want 4", s.active())
	}
}
