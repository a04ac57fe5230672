package fsstore_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/fsstore"
)

const cacheTestID = "00112233445566778899aabbccddeeff"

func wantContext(t *testing.T, s *fsstore.Store, want string) {
	t.Helper()
	got, _, err := s.GetContext(cacheTestID)
	if want == "" {
		if !errors.Is(err, storage.ErrContextNotFound) {
			t.Fatalf("GetContext = %s, %v; want not found", got, err)
		}
		return
	}
	if err != nil || string(got) != want {
		t.Fatalf("GetContext = %s, %v; want %s", got, err, want)
	}
}

// TestAContextIsReadAgainOnceAnotherStoreOpens: a store alone answers a
// context from what it wrote (its file, removed behind its back, is not
// read); once another store is open, or has been open since, it reads the
// file on every use, and sees what the other wrote.
func TestAContextIsReadAgainOnceAnotherStoreOpens(t *testing.T) {
	base := t.TempDir()
	a := open(t, base)
	defer a.Close()
	if err := a.PutContext(cacheTestID, []byte(`{"stage":1}`), time.Now()); err != nil {
		t.Fatal(err)
	}
	wantContext(t, a, `{"stage":1}`)
	path := filepath.Join(base, "projects", "_default", "contexts", cacheTestID+".json")
	if runtime.GOOS == "linux" {
		// Removed by no store: a alone does not read the file.
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		wantContext(t, a, `{"stage":1}`)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	b := open(t, base)
	wantContext(t, a, `{"stage":1}`)
	if err := b.PutContext(cacheTestID, []byte(`{"stage":2}`), time.Now()); err != nil {
		t.Fatal(err)
	}
	wantContext(t, a, `{"stage":2}`)
	if err := a.PutContext(cacheTestID, []byte(`{"stage":3}`), time.Now()); err != nil {
		t.Fatal(err)
	}
	wantContext(t, b, `{"stage":3}`)
	if err := b.DeleteContext(cacheTestID); err != nil {
		t.Fatal(err)
	}
	wantContext(t, a, "")
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	// b came and went: a reads the file, alone again it keeps what it reads.
	if err := a.PutContext(cacheTestID, []byte(`{"stage":4}`), time.Now()); err != nil {
		t.Fatal(err)
	}
	c := open(t, base)
	if err := c.PutContext(cacheTestID, []byte(`{"stage":5}`), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	wantContext(t, a, `{"stage":5}`)
}

// TestACachedContextKeepsItsUses: what a store alone answers from memory
// follows its own changes: a use moves the time, a delete and an expiry
// forget the context.
func TestACachedContextKeepsItsUses(t *testing.T) {
	base := t.TempDir()
	a := open(t, base)
	defer a.Close()
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := a.PutContext(cacheTestID, []byte(`{"stage":1}`), t0); err != nil {
		t.Fatal(err)
	}
	if _, used, err := a.GetContext(cacheTestID); err != nil || !used.Equal(t0) {
		t.Fatalf("used %v, %v; want %v", used, err, t0)
	}
	t1 := t0.Add(time.Minute)
	if err := a.TouchContext(cacheTestID, t1); err != nil {
		t.Fatal(err)
	}
	if _, used, err := a.GetContext(cacheTestID); err != nil || !used.Equal(t1) {
		t.Fatalf("after a use: used %v, %v; want %v", used, err, t1)
	}
	if n, err := a.ExpireContexts(t1.Add(time.Second)); err != nil || n != 1 {
		t.Fatalf("expired %d, %v; want 1", n, err)
	}
	wantContext(t, a, "")
	if err := a.CreateContext(cacheTestID, []byte(`{"stage":2}`), time.Now()); err != nil {
		t.Fatal(err)
	}
	wantContext(t, a, `{"stage":2}`)
	if err := a.DeleteContext(cacheTestID); err != nil {
		t.Fatal(err)
	}
	wantContext(t, a, "")
}
