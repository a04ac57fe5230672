package mcpserver

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/gateway"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// countingContexts is a context store that records which of its methods
// were called.
type countingContexts struct {
	storage.MemoryContexts
	calls []string
}

func (c *countingContexts) PutContext(id string, state []byte, used time.Time) error {
	c.calls = append(c.calls, "put")
	return c.MemoryContexts.PutContext(id, state, used)
}

func (c *countingContexts) TouchContext(id string, used time.Time) error {
	c.calls = append(c.calls, "touch")
	return nil
}

// creatingContexts is a countingContexts that stores new contexts apart.
type creatingContexts struct{ countingContexts }

func (c *creatingContexts) CreateContext(id string, state []byte, used time.Time) error {
	c.calls = append(c.calls, "create")
	return c.MemoryContexts.PutContext(id, state, used)
}

// TestANewContextIsCreatedApart: a new context goes to CreateContext where
// the store has it and to PutContext where it does not; a call that leaves
// a context's state as it was touches it, every time; a changed state is
// stored.
func TestANewContextIsCreatedApart(t *testing.T) {
	const id = "0123456789abcdef0123456789abcdef"
	store := &creatingContexts{}
	c := &contexts{store: store, timeout: time.Hour, now: time.Now}
	c.swept.Store(time.Now().UnixNano()) // no sweep in the background
	st := gateway.State{}
	if err := c.create(id, st); err != nil {
		t.Fatal(err)
	}
	for _, change := range []bool{false, false, true} {
		loaded, err := c.load(id)
		if err != nil {
			t.Fatal(err)
		}
		st := loaded.st
		if change {
			st.Stage++
		}
		if err := c.save(id, st, &loaded); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(store.calls, ","); got != "create,touch,touch,put" {
		t.Fatalf("store calls %q, want create,touch,touch,put", got)
	}
	plain := &countingContexts{}
	if err := (&contexts{store: plain, now: time.Now}).create(id, st); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(plain.calls, ","); got != "put" {
		t.Fatalf("a store without CreateContext: calls %q, want put", got)
	}
}

// TestTouchResolution: a thousandth of the session timeout, at most a
// second, and a second when contexts never expire here.
func TestTouchResolution(t *testing.T) {
	for timeout, want := range map[time.Duration]time.Duration{
		30 * time.Minute:   time.Second,
		1000 * time.Second: time.Second,
		2 * time.Second:    2 * time.Millisecond,
		time.Millisecond:   time.Microsecond,
		0:                  time.Second,
	} {
		if got := touchResolution(timeout); got != want {
			t.Errorf("touchResolution(%v) = %v, want %v", timeout, got, want)
		}
	}
}

// TestALoadFollowsTheStoredForm: a context's state read again in the form
// it was read or written in is the same state, the caller's own copy; a
// form another process stored in between is decoded, never the state this
// process knew; a context forgotten and stored again reads as stored.
func TestALoadFollowsTheStoredForm(t *testing.T) {
	const id = "0123456789abcdef0123456789abcdef"
	store := &creatingContexts{}
	c := &contexts{store: store, timeout: time.Hour, now: time.Now}
	c.swept.Store(time.Now().UnixNano())
	first := gateway.State{Stage: 1, CurrentSession: "s1", Root: &gateway.Root{URI: "file:///a", Name: "a"}}
	if err := c.create(id, first); err != nil {
		t.Fatal(err)
	}
	first.Root.Name = "changed by the creator"
	got, err := c.load(id)
	if err != nil || got.st.Root == nil || got.st.Root.Name != "a" {
		t.Fatalf("load after create: %+v, %v", got.st, err)
	}
	got.st.Root.Name = "changed by the caller"
	if again, _ := c.load(id); again.st.Root.Name != "a" {
		t.Fatalf("a caller's change to its copy reached the next load: %+v", again.st.Root)
	}
	first.Root.Name = "a"
	// Another process stores a new state behind this one's back.
	other := gateway.State{Stage: 2, CurrentSession: "s2"}
	if err := store.MemoryContexts.PutContext(id, []byte(`{"stage":2,"level":0,"currentSession":"s2"}`), time.Now()); err != nil {
		t.Fatal(err)
	}
	if got, err := c.load(id); err != nil || !sameState(got.st, other) {
		t.Fatalf("load after another process's write: %+v, %v; want %+v", got.st, err, other)
	}
	// A save of a changed state, then a load: the saved state.
	loaded, _ := c.load(id)
	third := loaded.st
	third.Level = 3
	if err := c.save(id, third, &loaded); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.load(id); !sameState(got.st, third) {
		t.Fatalf("load after save: %+v, want %+v", got.st, third)
	}
}

// TestSameState compares every field, and a bound root by value.
func TestSameState(t *testing.T) {
	root := func(uri string) *gateway.Root { return &gateway.Root{URI: uri, Name: "n"} }
	for _, tc := range []struct {
		a, b gateway.State
		same bool
	}{
		{gateway.State{}, gateway.State{}, true},
		{gateway.State{Root: root("x")}, gateway.State{Root: root("x")}, true},
		{gateway.State{Root: root("x")}, gateway.State{Root: root("y")}, false},
		{gateway.State{Root: root("x")}, gateway.State{}, false},
		{gateway.State{}, gateway.State{Root: root("x")}, false},
		{gateway.State{Stage: 1}, gateway.State{Stage: 2}, false},
		{gateway.State{Level: 1}, gateway.State{}, false},
		{gateway.State{Project: "p"}, gateway.State{}, false},
		{gateway.State{Task: "t"}, gateway.State{}, false},
		{gateway.State{Aspect: "a"}, gateway.State{}, false},
		{gateway.State{ActiveSessionID: "s"}, gateway.State{}, false},
		{gateway.State{CurrentSession: "s"}, gateway.State{}, false},
	} {
		if got := sameState(tc.a, tc.b); got != tc.same {
			t.Errorf("sameState(%+v, %+v) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

// TestTheDecodedStatesAreBounded: however many contexts are read, the
// states kept for them stay within maxDecoded.
func TestTheDecodedStatesAreBounded(t *testing.T) {
	c := &contexts{store: &storage.MemoryContexts{}, now: time.Now}
	for i := range maxDecoded + 10 {
		c.remember(fmt.Sprintf("%032x", i), &loadedContext{raw: []byte("{}")})
	}
	if n := len(c.decoded); n > maxDecoded {
		t.Fatalf("%d decoded states kept, more than %d", n, maxDecoded)
	}
}
