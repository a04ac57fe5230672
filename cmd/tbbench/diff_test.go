package main

import (
	"strings"
	"testing"
)

// TestDiffRefusesBadFlags: a missing or bad --a/--b, a bad --sessions or
// --transport is exit 2 naming the flag and the value.
func TestDiffRefusesBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--b", "embedded:fs"}, "--a is required"},
		{[]string{"--a", "embedded:fs"}, "--b is required"},
		{[]string{"--a", "embedded:fs", "--b", "ftp:x"}, `--b "ftp:x": unknown kind "ftp"`},
		{[]string{"--a", "embedded:tape", "--b", "embedded:fs"}, `--a "embedded:tape"`},
		{[]string{"--a", "embedded:fs", "--b", "embedded:fs", "--sessions", "0"}, "--sessions 0"},
		{[]string{"--a", "embedded:fs", "--b", "embedded:fs", "--transport", "pigeon"}, `--transport "pigeon"`},
		{[]string{"--a", "embedded:fs", "--b", "embedded:fs", "--http-idle-timeout", "0s"}, "--http-idle-timeout must be a positive duration, not 0s"},
	} {
		code, stderr := capture(t, append([]string{"diff", "--out", t.TempDir()}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 with %q: %s", c.args, code, c.want, stderr)
		}
	}
}
