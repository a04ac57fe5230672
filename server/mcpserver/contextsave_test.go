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

// TestAUseThatChangesNothingIsRecordedOncePerGrain: a call that leaves its
// context's state as it was moves the context's idle clock only when the
// last recorded use is a touchGrain old or more (or in the future); a
// changed state is always stored; a new context goes to CreateContext
// where the store has it.
func TestAUseThatChangesNothingIsRecordedOncePerGrain(t *testing.T) {
	const id = "0123456789abcdef0123456789abcdef"
	start := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	now := start
	store := &creatingContexts{}
	c := &contexts{store: store, timeout: time.Hour, now: func() time.Time { return now }}
	c.swept.Store(start.UnixNano()) // no sweep in the background
	if c.touchGrain() != time.Second {
		t.Fatalf("grain of an hour's timeout %v, want 1s", c.touchGrain())
	}
	st := gateway.State{}
	if err := c.create(id, st); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(store.calls, ","); got != "create" {
		t.Fatalf("a new context: store calls %q, want create", got)
	}
	load := func() (gateway.State, *stored) {
		t.Helper()
		st, old, err := c.load(id)
		if err != nil {
			t.Fatal(err)
		}
		return st, old
	}
	steps := []struct {
		after  time.Duration
		change bool
		want   string
	}{
		{after: 500 * time.Millisecond, want: ""},
		{after: 999 * time.Millisecond, want: ""},
		{after: time.Second, want: "touch"},
		{after: 10 * time.Millisecond, change: true, want: "put"},
		{after: -5 * time.Second, want: "touch"}, // the clock went back
	}
	for i, step := range steps {
		st, old := load()
		now = old.used.Add(step.after)
		if step.change {
			st.Stage++
		}
		store.calls = nil
		if err := c.save(id, st, old); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(store.calls, ","); got != step.want {
			t.Fatalf("step %d (%v after the last recorded use, change %v): store calls %q, want %q", i, step.after, step.change, got, step.want)
		}
		if step.want == "touch" {
			// The toucher above records nothing: record the use as a real
			// store would.
			_ = store.MemoryContexts.PutContext(id, old.raw, now)
		}
	}
	if !strings.HasPrefix(strings.Join(storeCallsOf(t, &countingContexts{}, id), ","), "put") {
		t.Fatal("a store without CreateContext did not get the new context through PutContext")
	}

	for timeout, want := range map[time.Duration]time.Duration{0: time.Second, 300 * time.Millisecond: 3 * time.Millisecond, 100 * time.Second: time.Second} {
		if got := (&contexts{timeout: timeout}).touchGrain(); got != want {
			t.Errorf("grain of timeout %v: %v, want %v", timeout, got, want)
		}
	}
}

// storeCallsOf creates context id in store and returns the calls it got.
func storeCallsOf(t *testing.T, store *countingContexts, id string) []string {
	t.Helper()
	c := &contexts{store: store, now: time.Now}
	if err := c.create(id, gateway.State{}); err != nil {
		t.Fatal(err)
	}
	return store.calls
}
