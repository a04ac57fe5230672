package sysfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/sysfile"
	"github.com/thoughtbox-bench/tbbench/server/tmpfile"
)

// TestCreateTempName checks that temporary names carry the process id the
// way tmpfile.RemoveStray reads it.
func TestCreateTempName(t *testing.T) {
	dir := t.TempDir()
	fd, name, err := sysfile.CreateTemp(dir, tmpfile.Prefix("001.json"), tmpfile.Suffix)
	if err != nil {
		t.Fatal(err)
	}
	if err := sysfile.Close(fd, name); err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(name)
	if !strings.HasPrefix(base, tmpfile.Prefix("001.json")) || !strings.HasSuffix(base, tmpfile.Suffix) {
		t.Fatalf("name %q", base)
	}
	if n := tmpfile.RemoveStray(dir); n != 1 {
		t.Errorf("removed %d stray temporary files, want 1", n)
	}
}

// TestWriteAtomic checks the writer through a rename: content and mode 0600,
// a file replaced, a temporary directory of its own, nothing left behind,
// and a missing directory reported as os.ErrNotExist with nothing created.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	tmpDir := filepath.Join(dir, "writing")
	if err := os.Mkdir(tmpDir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "a.json")
	for _, content := range []string{`{"a":1}`, `{"a":2}`} {
		if err := sysfile.WriteAtomic(tmpDir, path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil || string(data) != content {
			t.Fatalf("content %q, %v; want %q", data, err, content)
		}
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm()&^0o600 != 0 {
		t.Fatalf("mode %v, %v", info.Mode(), err)
	}
	if entries, _ := os.ReadDir(tmpDir); len(entries) != 0 {
		t.Fatalf("temporary files left: %v", entries)
	}
	for _, c := range []struct{ tmpDir, path string }{
		{filepath.Join(dir, "missing"), filepath.Join(dir, "b.json")},
		{tmpDir, filepath.Join(dir, "missing", "b.json")},
	} {
		if err := sysfile.WriteAtomic(c.tmpDir, c.path, []byte("x")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("WriteAtomic(%s, %s) = %v, want os.ErrNotExist", c.tmpDir, c.path, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("files after the failed writes: %v, want a.json and writing", entries)
	}
	if entries, _ := os.ReadDir(tmpDir); len(entries) != 0 {
		t.Errorf("temporary files left after a failed rename: %v", entries)
	}
}

// TestWriteNAndCutLast: WriteN writes everything and says so; CutLast
// takes the last bytes back, and refuses to cut more than the file holds.
func TestWriteNAndCutLast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	fd, err := sysfile.Open(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer sysfile.Close(fd, path)
	if n, err := sysfile.WriteN(fd, path, []byte("one\ntwo, cut")); err != nil || n != 12 {
		t.Fatalf("WriteN: %d %v", n, err)
	}
	if err := sysfile.CutLast(fd, path, 8); err != nil {
		t.Fatal(err)
	}
	if n, err := sysfile.WriteN(fd, path, []byte("two\n")); err != nil || n != 4 {
		t.Fatalf("WriteN after the cut: %d %v", n, err)
	}
	if data, _ := os.ReadFile(path); string(data) != "one\ntwo\n" {
		t.Errorf("the file holds %q", data)
	}
	if err := sysfile.CutLast(fd, path, 100); err == nil {
		t.Error("cut 100 bytes off an 8-byte file")
	}
}
