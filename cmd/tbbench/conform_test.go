package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
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
		{[]string{"--profile", "gatway"}, `--profile "gatway": unknown profile`},
		{[]string{"--concurrency", "0"}, "--concurrency must be at least 1, not 0"},
		{[]string{"--repeat", "-2"}, "--repeat must be at least 1, not -2"},
		{[]string{"--progress", "fancy"}, `--progress "fancy"`},
		{[]string{"--url", "ftp://127.0.0.1:9/mcp"}, `--url "ftp://127.0.0.1:9/mcp"`},
		{[]string{"--url", "127.0.0.1:9/mcp"}, `--url "127.0.0.1:9/mcp"`},
		{[]string{"--http-idle-timeout", "0s"}, "--http-idle-timeout must be a positive duration, not 0s"},
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

// captureAll runs tbbench with args and returns its exit status and what
// it wrote on stdout and stderr.
func captureAll(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, r)
		done <- b.String()
	}()
	code, stderr = capture(t, args...)
	os.Stdout = old
	w.Close()
	return code, <-done, stderr
}

// TestConformQuirksAreInformational runs the validation suite, whose @quirk
// scenarios the reference server does not have: they are neither passes nor
// failures, in the last line, conformance.md and junit.xml, and the run
// exits 0.
func TestConformQuirksAreInformational(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := captureAll(t, "conform", "--storage", "memory", "--tags", "@validation", "--out", dir, "--run-id", "r",
		"--progress", "lines")
	if code != exitPass {
		t.Fatalf("exit %d: %s\n%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	last := lines[len(lines)-1]
	if !regexp.MustCompile(`^[1-9]\d* passed, 0 failed, [1-9]\d* informational \(quirk\)$`).MatchString(last) {
		t.Errorf("last line %q", last)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "r", "conformance.md"))
	if !strings.Contains(string(md), " passed, 0 failed, ") || strings.Contains(string(md), "## Failures") ||
		!strings.Contains(string(md), "quirk absent") {
		t.Errorf("conformance.md:\n%s", md)
	}
	junit, _ := os.ReadFile(filepath.Join(dir, "r", "junit.xml"))
	var doc struct {
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(junit, &doc); err != nil {
		t.Fatal(err)
	}
	quirks := 0
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if strings.HasPrefix(c.Name, "@quirk ") {
				quirks++
				if c.Failure != nil || c.Skipped == nil || !strings.Contains(c.Skipped.Message, "informational") {
					t.Errorf("junit.xml: quirk %s is a failure or not marked informational", c.Name)
				}
			}
		}
	}
	if doc.Failures != 0 || quirks == 0 {
		t.Errorf("junit.xml: %d failures, %d quirk cases", doc.Failures, quirks)
	}
}

// TestConformNothingApplicable selects only scenarios that kill the server,
// which do not apply to memory storage: nothing is judged, and the run
// exits 2 saying so rather than passing or failing.
func TestConformNothingApplicable(t *testing.T) {
	code, stdout, stderr := captureAll(t, "conform", "--storage", "memory", "--tags", "@kill", "--out", t.TempDir(), "--progress", "lines")
	if code != exitBadInput || !strings.Contains(stderr, "applies to this target: nothing was judged") {
		t.Fatalf("exit %d, want %d: %s\n%s", code, exitBadInput, stdout, stderr)
	}
}
