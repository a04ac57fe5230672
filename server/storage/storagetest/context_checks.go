package storagetest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

const (
	ctxA = "0123456789abcdef0123456789abcdef"
	ctxB = "fedcba9876543210fedcba9876543210"
)

func contexts(t *testing.T, st storage.Store) storage.ContextStore {
	t.Helper()
	cs, ok := st.(storage.ContextStore)
	if !ok {
		t.Fatalf("%T does not keep contexts (storage.ContextStore)", st)
	}
	return cs
}

// contextsRoundTrip: a stored context reads back with its state and time,
// is replaced by a later put, is forgotten by delete, and an id of the wrong
// form is refused rather than used.
func (s suite) contextsRoundTrip(t *testing.T) {
	cs := contexts(t, s.open(t, t.TempDir()))
	used := time.Date(2026, 11, 26, 9, 0, 0, 123456789, time.UTC)
	if _, _, err := cs.GetContext(ctxA); !errors.Is(err, storage.ErrContextNotFound) {
		t.Fatalf("unknown context: err %v, want ErrContextNotFound", err)
	}
	if err := cs.PutContext(ctxA, []byte(`{"stage":1}`), used); err != nil {
		t.Fatal(err)
	}
	if err := cs.PutContext(ctxB, []byte(`{"stage":2}`), used); err != nil {
		t.Fatal(err)
	}
	state, got, err := cs.GetContext(ctxA)
	if err != nil || string(state) != `{"stage":1}` || !got.Equal(used) {
		t.Fatalf("GetContext = %s, %v, %v; want {\"stage\":1}, %v", state, got, err, used)
	}
	later := used.Add(time.Minute)
	if err := cs.PutContext(ctxA, []byte(`{"stage":3}`), later); err != nil {
		t.Fatal(err)
	}
	if state, got, _ := cs.GetContext(ctxA); string(state) != `{"stage":3}` || !got.Equal(later) {
		t.Fatalf("after a second put: %s at %v", state, got)
	}
	if err := cs.DeleteContext(ctxA); err != nil {
		t.Fatal(err)
	}
	if _, _, err := cs.GetContext(ctxA); !errors.Is(err, storage.ErrContextNotFound) {
		t.Fatalf("deleted context: err %v", err)
	}
	if state, _, err := cs.GetContext(ctxB); err != nil || string(state) != `{"stage":2}` {
		t.Fatalf("the other context: %s, %v", state, err)
	}
	// Expiry forgets what was last used before the cutoff, and only that.
	if err := cs.PutContext(ctxA, []byte(`{"stage":4}`), used.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n, err := cs.ExpireContexts(used.Add(-time.Minute)); err != nil || n != 1 {
		t.Fatalf("ExpireContexts = %d, %v; want 1", n, err)
	}
	if _, _, err := cs.GetContext(ctxA); !errors.Is(err, storage.ErrContextNotFound) {
		t.Fatalf("an expired context is still there: %v", err)
	}
	if state, _, err := cs.GetContext(ctxB); err != nil || string(state) != `{"stage":2}` {
		t.Fatalf("a live context was expired: %s, %v", state, err)
	}
	if toucher, ok := cs.(storage.ContextToucher); ok {
		// A touch moves the idle clock and keeps the state; expiry goes
		// by the touched time.
		if err := cs.PutContext(ctxA, []byte(`{"stage":5}`), used.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := toucher.TouchContext(ctxA, used); err != nil {
			t.Fatal(err)
		}
		if state, got, err := cs.GetContext(ctxA); err != nil || string(state) != `{"stage":5}` || !got.Equal(used) {
			t.Fatalf("after a touch: %s at %v, %v; want {\"stage\":5} at %v", state, got, err, used)
		}
		if n, err := cs.ExpireContexts(used.Add(-time.Minute)); err != nil || n != 0 {
			t.Fatalf("ExpireContexts after a touch = %d, %v; want 0", n, err)
		}
		if err := toucher.TouchContext(strings.Repeat("ab", 16), used); !errors.Is(err, storage.ErrContextNotFound) {
			t.Fatalf("touching an unknown context: %v, want ErrContextNotFound", err)
		}
		if err := cs.DeleteContext(ctxA); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []string{"", "../../etc/passwd", "0123456789ABCDEF0123456789ABCDEF", ctxA + "0"} {
		if err := cs.PutContext(bad, []byte(`{}`), used); err == nil {
			t.Errorf("PutContext(%q) accepted", bad)
		}
		if _, _, err := cs.GetContext(bad); !errors.Is(err, storage.ErrContextNotFound) {
			t.Errorf("GetContext(%q): err %v, want ErrContextNotFound", bad, err)
		}
	}
}

// contextsShared: a context one store wrote is served by another store on
// the same dir, and survives a restart (Persistent and Shared backends).
func (s suite) contextsShared(t *testing.T) {
	dir := t.TempDir()
	used := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	first := s.newStore(t, dir)
	if err := contexts(t, first).PutContext(ctxA, []byte(`{"stage":2}`), used); err != nil {
		t.Fatal(err)
	}
	second := s.open(t, dir)
	if state, _, err := contexts(t, second).GetContext(ctxA); err != nil || string(state) != `{"stage":2}` {
		t.Fatalf("second store: %s, %v", state, err)
	}
	if err := contexts(t, second).PutContext(ctxA, []byte(`{"stage":3}`), used); err != nil {
		t.Fatal(err)
	}
	if state, _, err := contexts(t, first).GetContext(ctxA); err != nil || string(state) != `{"stage":3}` {
		t.Fatalf("first store after the second wrote: %s, %v", state, err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if state, _, err := contexts(t, s.open(t, dir)).GetContext(ctxA); err != nil || string(state) != `{"stage":3}` {
		t.Fatalf("after a restart: %s, %v", state, err)
	}
}
