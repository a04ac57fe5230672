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
