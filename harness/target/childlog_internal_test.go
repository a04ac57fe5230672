package target

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoggedPanic finds a Go panic anywhere in a log, also across the
// pieces it is read in, and nothing in a log without one.
func TestLoggedPanic(t *testing.T) {
	filler := strings.Repeat("thought 12 of 40: a line of the server's own drawing\n", 3000) // about 160 KB
	for _, c := range []struct {
		name string
		log  string
		want bool
	}{
		{"empty", "", false},
		{"no panic", filler + "level=INFO msg=\"stopped\"\n", false},
		{"a word, not a panic", filler + "the thought said: no panic: all is well\n", false},
		{"a recovered handler panic", filler + "2026/11/28 02:22:36 http: panic serving 127.0.0.1:41234: runtime error\n" + filler, true},
		{"a panic on the first line", "panic: runtime error: index out of range\n\ngoroutine 1 [running]:\n", true},
		{"a panic that ended the process", filler + "panic: boom\n\ngoroutine 7 [running]:\n", true},
		{"a fatal error", filler + "fatal error: concurrent map writes\n", true},
		{"a mark across the pieces", strings.Repeat("x", 64<<10-7) + "\nhttp: panic serving 1.2.3.4:5: x\n", true},
		{"a line start across the pieces", strings.Repeat("x", 64<<10-1) + "\npanic: x\n", true},
	} {
		if got := loggedPanic(strings.NewReader(c.log)); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// A child's log is removed when it stops, unless the server logged a panic.
func TestLogOfAPanicIsKept(t *testing.T) {
	dir := t.TempDir()
	quiet, loud := filepath.Join(dir, "quiet.log"), filepath.Join(dir, "loud.log")
	os.WriteFile(quiet, []byte("level=INFO msg=listening\n"), 0o600)
	os.WriteFile(loud, []byte("level=INFO msg=listening\n2026/11/28 http: panic serving 127.0.0.1:1: x\n"), 0o600)
	if err := removeLogUnlessPanicked(quiet); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(quiet); !os.IsNotExist(err) {
		t.Errorf("the log without a panic is still there: %v", err)
	}
	if err := removeLogUnlessPanicked(loud); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(loud); err != nil {
		t.Errorf("the log of a panic was not kept: %v", err)
	}
}
