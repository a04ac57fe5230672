package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/noop"
)

func TestMain(m *testing.M) {
	embedded.ServeIfRequested()
	noop.ServeIfRequested()
	os.Exit(m.Run())
}

// capture runs tbbench with args and returns its exit status and what it
// wrote on stderr.
func capture(t *testing.T, args ...string) (int, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = w
	done := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, r)
		done <- b.String()
	}()
	code := run(args)
	os.Stderr = old
	w.Close()
	return code, <-done
}

// TestLoadRefusesBadInput checks that bad input is refused with a message
// that says what is wrong, before any load is sent.
func TestLoadRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	badWorkload := filepath.Join(dir, "w.yaml")
	os.WriteFile(badWorkload, []byte("session:\n  thoughts: {min: 9, max: 3}\n"), 0o644)
	badThreshold := filepath.Join(dir, "t.yaml")
	os.WriteFile(badThreshold, []byte("tiers:\n  smoke:\n    model: closed\n    users: 1\n    duration: 1s\n    thresholds:\n      latency: [\"p(99)<5xs\"]\n"), 0o644)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--segment", "5/4"}, []string{"segment", "5"}},
		{[]string{"--segment", "x"}, []string{"segment"}},
		{[]string{"--tier", "marathon"}, []string{"marathon", "smoke"}},
		{[]string{"--workload", badWorkload}, []string{"w.yaml:2", "session.thoughts"}},
		{[]string{"--workload", badThreshold}, []string{"t.yaml:7", "5xs"}},
		{[]string{"--workload", filepath.Join(dir, "missing.yaml")}, []string{"missing.yaml"}},
		{[]string{"--url", "http://" + addr + "/mcp", "--call-timeout", "1s"}, []string{addr}},
		{[]string{"--compare-storage", "fs,tape"}, []string{"tape"}},
		{[]string{"--url", "http://" + addr + "/mcp", "--compare-storage", "fs,memory"}, []string{"compare-storage"}},
		{[]string{"--target", "pigeon"}, []string{"pigeon"}},
		{[]string{"--realtime-pacer", "maybe"}, []string{"realtime-pacer", "maybe"}},
	} {
		code, stderr := capture(t, append([]string{"load", "--out", dir, "--progress", "lines"}, c.args...)...)
		if code != exitLoadBadInput {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, exitLoadBadInput, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: the message does not name %q: %s", c.args, w, stderr)
			}
		}
	}
}

// TestLoadThresholdExitStatus runs a smoke tier against the no-op server
// with a threshold nobody can meet: the run completes and exits 99.
func TestLoadThresholdExitStatus(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "w.yaml")
	os.WriteFile(w, []byte("tiers:\n  smoke:\n    model: closed\n    users: 1\n    duration: 500ms\n    thresholds:\n      latency: [\"p(99)<1ns\"]\n"), 0o644)
	code, stderr := capture(t, "load", "--target", "noop", "--in-process", "--workload", w, "--out", dir, "--run-id", "r", "--progress", "lines")
	if code != exitLoadThresholds {
		t.Fatalf("exit %d, want %d: %s", code, exitLoadThresholds, stderr)
	}
	for _, f := range []string{"load.json", "load.md", "load.html", "scorecard.json"} {
		if _, err := os.Stat(filepath.Join(dir, "r", f)); err != nil {
			t.Error(err)
		}
	}
	if code, _ := capture(t, "merge", "--out", dir, filepath.Join(dir, "r", "load.json"), filepath.Join(dir, "r", "load.json")); code != 2 {
		t.Errorf("merging one segment twice: exit %d", code)
	}
}
