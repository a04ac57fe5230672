package mcpserver

import (
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
		st, raw, err := c.load(id)
		if err != nil {
			t.Fatal(err)
		}
		if change {
			st.Stage++
		}
		if err := c.save(id, st, raw); err != nil {
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
