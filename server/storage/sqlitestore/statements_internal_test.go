package sqlitestore

import (
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// TestEveryChangeRunsPreparedStatements makes every kind of change (a
// session, thoughts, a critique, a context) and checks that none ran a
// statement from its text inside a transaction: each was prepared when
// the store opened, or before.
func TestEveryChangeRunsPreparedStatements(t *testing.T) {
	s, err := Open(t.TempDir(), "_default")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.Create(storage.CreateParams{Title: "prepared"})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := c.Append(storage.Entry{Thought: "t", NextThoughtNeeded: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.SetCritique(storage.MainNodeID(c.ID(), 2), storage.Critique{Text: "check", Model: "m", Timestamp: "2026-11-27T00:00:00.000Z"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutContext("0123456789abcdef0123456789abcdef", []byte(`{"a":1}`), s.now()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.GetContext("0123456789abcdef0123456789abcdef"); err != nil {
		t.Fatal(err)
	}
	if got := s.List(storage.Filter{}); len(got) != 1 {
		t.Fatalf("List: %d sessions", len(got))
	}
	s.stmts.mu.Lock()
	unprepared, prepared := s.stmts.unprepared, len(s.stmts.m)
	s.stmts.mu.Unlock()
	if unprepared != 0 {
		t.Errorf("%d statements ran from their text inside a transaction", unprepared)
	}
	if prepared < len(txStatements)+3 {
		t.Errorf("%d statements prepared; the changes above use at least %d", prepared, len(txStatements)+3)
	}
}
