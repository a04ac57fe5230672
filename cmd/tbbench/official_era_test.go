package main

import (
	"strings"
	"testing"
)

// tbbench official takes --era as conform, robust and load do (the same as
// --revision), and refuses an era it does not know, naming it, before it
// starts anything.
func TestOfficialEraFlag(t *testing.T) {
	for _, flag := range []string{"--era", "--revision"} {
		code, _, stderr := captureAll(t, "official", flag, "2027-01-01")
		if code != exitBadInput || !strings.Contains(stderr, `"2027-01-01"`) || !strings.Contains(stderr, "--era") {
			t.Errorf("%s 2027-01-01: exit %d, stderr %q", flag, code, stderr)
		}
	}
}

// A time limit of zero or less is refused, naming the flag and the value.
func TestOfficialRefusesANonPositiveTimeout(t *testing.T) {
	code, _, stderr := captureAll(t, "official", "--scenario-timeout", "-1s")
	if code != exitBadInput || !strings.Contains(stderr, "--scenario-timeout") || !strings.Contains(stderr, "-1s") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// --http-idle-timeout of zero or less is refused by every command that
// takes a target, naming the flag and the value.
func TestNonPositiveHTTPIdleTimeoutIsRefused(t *testing.T) {
	for _, cmd := range []string{"official", "robust", "conform", "load", "diff"} {
		code, _, stderr := captureAll(t, cmd, "--http-idle-timeout", "-3s")
		if code != exitBadInput || !strings.Contains(stderr, "--http-idle-timeout") || !strings.Contains(stderr, "-3s") {
			t.Errorf("%s: exit %d, stderr %q", cmd, code, stderr)
		}
	}
}

// A run in which no scored scenario applies (here one that needs a fixture
// of the suite's own server, which the reference server does not offer)
// judged nothing: exit 2, said, never a pass.
func TestOfficialNothingApplicableJudgesNothing(t *testing.T) {
	code, stdout, stderr := captureAll(t, "official", "--scenario", "tools-call-image", "--era", "2025-11-25", "--out", t.TempDir())
	if code != exitBadInput || !strings.Contains(stderr, "nothing was judged") {
		t.Errorf("exit %d, want %d saying nothing was judged:\n%s\n%s", code, exitBadInput, stdout, stderr)
	}
}
