package main

import (
	"os"
	"strings"
	"testing"
)

// TestConformRefusesBadSelections checks that a --tags expression that
// selects nothing, or nothing that is judged, exits 2 with a message that
// says so, before any target starts (no run directory is made).
func TestConformRefusesBadSelections(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tags", "@quirk"}, "none at a required level (@core, @intent)"},
		{[]string{"--url", "http://127.0.0.1:9/mcp", "--tags", "@intent"}, "none at a required level (@core)"},
		{[]string{"--tags", "@ledger && @gating"}, "selects no scenario"},
		{[]string{"--tags", "@ledgr"}, "names @ledgr"},
		{[]string{"--require", "quirk"}, "no required level"},
	} {
		code, stderr := capture(t, append([]string{"conform", "--out", dir, "--progress", "lines", "--storage", "memory"}, c.args...)...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %d with %q: %s", c.args, code, exitBadInput, c.want, stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("a refused run left %d entries in the output directory", len(entries))
	}
}
