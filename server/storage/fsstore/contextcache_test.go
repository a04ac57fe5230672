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

// TestAUseWithinTheTouchResolutionIsKeptInMemory: a use of a context less
// than the touch resolution after the last one its file records is
// answered from memory and leaves the file's time alone; a later one, or
// any use without a resolution, moves it; once another store is open,
// every use is recorded again.
func TestAUseWithinTheTouchResolutionIsKeptInMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the cache needs the register of open stores (Linux)")
	}
	base := t.TempDir()
	path := filepath.Join(base, "projects", "_default", "contexts", cacheTestID+".json")
	mtime := func() time.Time {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.ModTime()
	}
	a, err := fsstore.Open(base, "_default", quiet(), fsstore.WithFlushInterval(0), fsstore.WithContextTouchResolution(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	t0 := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	if err := a.PutContext(cacheTestID, []byte(`{"stage":1}`), t0); err != nil {
		t.Fatal(err)
	}
	recorded := mtime()
	if _, _, err := a.GetContext(cacheTestID); err != nil { // as every call does first
		t.Fatal(err)
	}
	touch := func(s *fsstore.Store, used time.Time) {
		t.Helper()
		if err := s.TouchContext(cacheTestID, used); err != nil {
			t.Fatal(err)
		}
	}
	wantUsed := func(s *fsstore.Store, want time.Time) {
		t.Helper()
		if _, used, err := s.GetContext(cacheTestID); err != nil || !used.Equal(want) {
			t.Fatalf("last use %v, %v; want %v", used, err, want)
		}
	}

	touch(a, t0.Add(400*time.Millisecond))
	touch(a, t0.Add(900*time.Millisecond))
	if !mtime().Equal(recorded) {
		t.Errorf("a use within the resolution moved the file's time from %v to %v", recorded, mtime())
	}
	wantUsed(a, t0.Add(900*time.Millisecond))
	touch(a, t0.Add(1200*time.Millisecond))
	if got := mtime(); !got.Equal(t0.Add(1200 * time.Millisecond)) {
		t.Errorf("a use past the resolution left the file's time at %v", got)
	}
	touch(a, t0.Add(1500*time.Millisecond))
	wantUsed(a, t0.Add(1500*time.Millisecond))

	// Another store open: every use reaches the file, and the other store
	// reads a time at most the resolution behind.
	b := open(t, base)
	defer b.Close()
	if _, used, err := b.GetContext(cacheTestID); err != nil || used.Before(t0.Add(500*time.Millisecond)) {
		t.Fatalf("b reads the last use %v, %v; want at most a second before %v", used, err, t0.Add(1500*time.Millisecond))
	}
	wantUsed(a, t0.Add(1200*time.Millisecond)) // a reads the file again too
	touch(a, t0.Add(1600*time.Millisecond))
	if got := mtime(); !got.Equal(t0.Add(1600 * time.Millisecond)) {
		t.Errorf("with b open a use left the file's time at %v", got)
	}

	// Without a resolution every use is recorded.
	cbase := t.TempDir()
	c := open(t, cbase)
	defer c.Close()
	if err := c.PutContext(cacheTestID, []byte(`{"stage":1}`), t0); err != nil {
		t.Fatal(err)
	}
	touch(c, t0.Add(time.Millisecond))
	fi, err := os.Stat(filepath.Join(cbase, "projects", "_default", "contexts", cacheTestID+".json"))
	if err != nil || !fi.ModTime().Equal(t0.Add(time.Millisecond)) {
		t.Errorf("without a resolution a use left the file's time at %v (%v)", fi.ModTime(), err)
	}
}
