package sqlitestore_test

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/sqlitestore"
)

// place writes data as the project's database file and returns its path.
func place(t *testing.T, dir string, data []byte) string {
	t.Helper()
	path := sqlitestore.Path(dir, "_default")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// refused opens dir and checks that it is refused with a NotOursError
// carrying recovery text, and that the file was not changed.
func refused(t *testing.T, dir, path string, corrupt bool) {
	t.Helper()
	before, _ := os.ReadFile(path)
	s, err := sqlitestore.Open(dir, "_default", quiet())
	if err == nil {
		s.Close()
		t.Fatal("the file was accepted")
	}
	var not *sqlitestore.NotOursError
	if !errors.As(err, &not) || not.Corrupt != corrupt {
		t.Fatalf("error %v, want a NotOursError with Corrupt %v", err, corrupt)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "Recovery options") || !strings.Contains(err.Error(), "left untouched") {
		t.Errorf("the error does not name the file and the way out: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the refused file was changed")
	}
}

func TestFileThatIsNotSQLiteIsRefusedAndKept(t *testing.T) {
	dir := t.TempDir()
	path := place(t, dir, []byte("these are somebody's notes, not a database\n"))
	refused(t, dir, path, false)
}

func TestSQLiteFileOfAnotherProgramIsRefusedAndKept(t *testing.T) {
	dir := t.TempDir()
	path := sqlitestore.Path(dir, "_default")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE sessions (id TEXT, secret TEXT); INSERT INTO sessions VALUES ('x', 'keep me')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	refused(t, dir, path, false)
}

func TestDamagedDatabaseIsRefusedAndKept(t *testing.T) {
	dir := t.TempDir()
	s, err := sqlitestore.Open(dir, "_default", quiet())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		c, err := s.Create(storage.CreateParams{Title: strings.Repeat("a long title ", 40)})
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 5; j++ {
			if _, err := c.Append(storage.Entry{Thought: strings.Repeat("x", 500)}); err != nil {
				t.Fatal(err)
			}
		}
		s.Release(c.ID())
	}
	s.Close()
	path := sqlitestore.Path(dir, "_default")
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 8192 {
		t.Fatalf("database of %d bytes: %v", len(data), err)
	}
	// Scribble over every page after the first two (the header and the
	// schema stay readable, the tables do not).
	for i := 8192; i < len(data); i++ {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	refused(t, dir, path, true)
}

func TestEmptyFileBecomesADatabase(t *testing.T) {
	dir := t.TempDir()
	place(t, dir, nil)
	s, err := sqlitestore.Open(dir, "_default", quiet())
	if err != nil {
		t.Fatalf("an empty file was refused: %v", err)
	}
	defer s.Close()
	if _, err := s.Create(storage.CreateParams{Title: "first"}); err != nil {
		t.Fatal(err)
	}
}
