package fsstore

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// The holder's id replaces what an earlier holder wrote, longer or shorter,
// in the same file: after it the file holds exactly this process's id, and
// holder reads it back.
func TestWriteHolderOverwritesInPlace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, lockName)
	want := strconv.Itoa(os.Getpid()) + "\n"
	for _, before := range []string{"", "7\n", "123456789012345678\n", "not a pid at all, and long\n"} {
		if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
			t.Fatal(err)
		}
		var st0 syscall.Stat_t
		if err := syscall.Stat(path, &st0); err != nil {
			t.Fatal(err)
		}
		writeHolder(path)
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Fatalf("after %q: the file holds %q (%v), want %q", before, got, err, want)
		}
		var st1 syscall.Stat_t
		if err := syscall.Stat(path, &st1); err != nil || st1.Ino != st0.Ino {
			t.Errorf("after %q: the lock file was replaced (inode %d, then %d)", before, st0.Ino, st1.Ino)
		}
		if h := newSessionLock(dir).holder(); h != os.Getpid() {
			t.Errorf("after %q: holder %d, want %d", before, h, os.Getpid())
		}
	}
}

// BenchmarkLockCycle measures taking a session's lock and dropping it again,
// as a process does each time it takes up a session it had released
// (load_context on a closed session).
//
//	go test -run '^$' -bench LockCycle ./server/storage/fsstore
func BenchmarkLockCycle(b *testing.B) {
	l := newSessionLock(b.TempDir())
	for b.Loop() {
		if ok, err := l.acquire(0); !ok || err != nil {
			b.Fatal(ok, err)
		}
		_ = l.release()
	}
}
