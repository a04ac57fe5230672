package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
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
	exe, err := os.Executable() // an executable file that is no thoughtbox
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--segment", "5/4"}, []string{"segment", "5"}},
		{[]string{"--segment", "x"}, []string{"segment"}},
		{[]string{"--tier", "marathon"}, []string{"marathon", "smoke"}},
		{[]string{"--rounds", "-1"}, []string{"--rounds", "-1"}},
		{[]string{"--users", "-3"}, []string{"--users", "-3"}},
		{[]string{"--tier", "stress", "--rounds", "4"}, []string{"--rounds", "stress"}},
		{[]string{"--call-timeout", "-1s"}, []string{"--call-timeout", "-1s"}},
		{[]string{"--http-idle-timeout", "-2s"}, []string{"--http-idle-timeout", "-2s"}},
		{[]string{"--progress", "fancy"}, []string{"--progress", "fancy"}},
		{[]string{"--workload", badWorkload}, []string{"w.yaml:2", "session.thoughts"}},
		{[]string{"--workload", badThreshold}, []string{"t.yaml:7", "5xs"}},
		{[]string{"--workload", filepath.Join(dir, "missing.yaml")}, []string{"missing.yaml"}},
		{[]string{"--url", "http://" + addr + "/mcp", "--call-timeout", "1s"}, []string{addr}},
		{[]string{"--url", old2025(t) + "/mcp", "--era", "2026-07-28"}, []string{"does not speak this MCP era", "2026-07-28"}},
		{[]string{"--compare-storage", "fs,tape"}, []string{"tape"}},
		{[]string{"--url", "http://" + addr + "/mcp", "--compare-storage", "fs,memory"}, []string{"compare-storage"}},
		{[]string{"--target", "pigeon"}, []string{"pigeon"}},
		{[]string{"--realtime-pacer", "maybe"}, []string{"realtime-pacer", "maybe"}},
		{[]string{"--subject", "base"}, []string{"--subject", `"base"`, "NAME=SPEC"}},
		{[]string{"--subject", "a=tape:1"}, []string{"--subject", "a=tape:1", `unknown kind "tape"`}},
		{[]string{"--subject", "a=embedded:tape"}, []string{"--subject", "a=embedded:tape", "fs, memory, sqlite"}},
		{[]string{"--subject", "a=embedded"}, []string{"--subject", "a=embedded", "storage mode"}},
		{[]string{"--subject", "a=cmd:"}, []string{"--subject", "a=cmd:", "command line"}},
		{[]string{"--url", "ftp://" + addr + "/mcp"}, []string{"--url", `"ftp://` + addr}},
		{[]string{"--subject", "a=url:http://"}, []string{"--subject", "a=url:http://", `--url "http://"`}},
		{[]string{"--subject", "a=url:ftp://x"}, []string{"--subject", "a=url:ftp://x", "http://"}},
		{[]string{"--subject", "a=noop:x"}, []string{"--subject", "a=noop:x"}},
		{[]string{"--subject", "ceiling=embedded:fs"}, []string{"--subject", "ceiling=embedded:fs", "no-op"}},
		{[]string{"--subject", "a b=embedded:fs"}, []string{"--subject", "a b=embedded:fs", "name"}},
		{[]string{"--subject", "a=embedded:fs", "--subject", "a=embedded:memory"}, []string{"--subject", "a=embedded:memory", "twice"}},
		{[]string{"--subject", "a=embedded:fs", "--baseline", "b"}, []string{"--baseline", `"b"`}},
		{[]string{"--subject", "a=embedded:fs", "--compare-storage", "fs"}, []string{"--subject", "--compare-storage"}},
		{[]string{"--compare-storage", "fs,memory", "--baseline", "sqlite"}, []string{"--baseline", `"sqlite"`}},
		{[]string{"--compare-storage", "fs", "--base-build", filepath.Join(dir, "missing")}, []string{"--base-build", "missing", "no such file"}},
		{[]string{"--compare-storage", "fs", "--data-dir", dir, "--base-build", exe}, []string{"--base-build", "--data-dir"}},
		{[]string{"--compare-storage", "fs", "--base-build", dir}, []string{"--base-build", dir, "not an executable"}},
		{[]string{"--url", "http://" + addr + "/mcp", "--base-build", exe}, []string{"--base-build", "--url"}},
		{[]string{"--compare-storage", "fs", "--in-process", "--base-build", exe}, []string{"--base-build", "--in-process"}},
		{[]string{"--subject", "a=embedded:fs", "--base-build", exe}, []string{"--base-build", "--subject"}},
		{[]string{"--target", "noop", "--base-build", exe}, []string{"--base-build", "--target"}},
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

// twoSubjectsWorkload writes, into dir, a workload of 3 short smoke rounds
// that judges each subject's throughput against its baseline, and returns
// its path.
func twoSubjectsWorkload(t *testing.T, dir string) string {
	t.Helper()
	w := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(w, []byte(`tiers:
  smoke:
    model: closed
    users: 1
    duration: 300ms
    rounds: 3
    thresholds:
      errors: ["count==0"]
      ratio{vs:baseline}: ["throughput>0.001"]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestLoadSubjectsAndInconclusive runs two subjects in interleaved rounds
// beside the ceiling and reads their paired ratios from load.json; then a
// tier whose ceiling condition the machine cannot meet exits 3, with the
// reason in load.md and the scorecard.
func TestLoadSubjectsAndInconclusive(t *testing.T) {
	dir := t.TempDir()
	w := twoSubjectsWorkload(t, dir)
	code, stderr := capture(t, "load", "--in-process", "--prometheus", "off", "--workload", w, "--out", dir, "--run-id", "ab", "--progress", "lines",
		"--subject", "base=embedded:memory", "--subject", "head=embedded:memory")
	// A busy machine may answer no thought call in a round of 300 ms: the
	// run then cannot tell whether the target loses thoughts, and says so.
	if code != exitLoadPass && (code != exitLoadInconclusive || !strings.Contains(stderr, "no thought call was answered in")) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rep, err := loadreport.ReadReport(filepath.Join(dir, "ab", "load.json"))
	if err != nil {
		t.Fatal(err)
	}
	// That excuse holds for a round, not the run: each subject kept
	// thoughts in the others, and nothing else was left undecided.
	for _, label := range []string{"base", "head"} {
		acked := 0
		for _, p := range rep.Phases {
			if p.Label == label && p.Verification != nil {
				acked += p.Verification.Acknowledged
			}
		}
		if acked == 0 {
			t.Fatalf("%s acknowledged no thought in any round", label)
		}
	}
	if code == exitLoadInconclusive && !strings.HasPrefix(rep.Inconclusive, "no thought call was answered in") {
		t.Fatalf("inconclusive for another reason too: %s", rep.Inconclusive)
	}
	if rep.Baseline != "base" || len(rep.Targets) != 3 || rep.Targets[2].Label != loadreport.CeilingLabel {
		t.Fatalf("baseline %q, targets %+v", rep.Baseline, rep.Targets)
	}
	vs := map[string]bool{}
	for _, x := range rep.Ratios {
		if x.Subject == "head" && x.Figure == "throughput" && len(x.Rounds) == 3 && x.Bounded {
			vs[x.Versus] = true
		}
	}
	if !vs["ceiling"] || !vs["baseline"] {
		t.Fatalf("head's throughput ratios to the ceiling and the baseline missing: %+v", rep.Ratios)
	}
	if len(rep.Relative) != 1 || rep.Relative[0].Subject != "head" || rep.Relative[0].Status != "passed" {
		t.Fatalf("relative thresholds %+v", rep.Relative)
	}

	// One round gives no interval: nothing judged, exit 2, said first.
	code, stderr = capture(t, "load", "--in-process", "--prometheus", "off", "--workload", w, "--rounds", "1", "--out", dir, "--run-id", "one",
		"--progress", "lines", "--subject", "base=embedded:memory", "--subject", "head=embedded:memory")
	if code != exitLoadBadInput || !strings.Contains(stderr, "nothing judged: 1 relative threshold(s) rest on 1 paired round(s)") {
		t.Fatalf("one round: exit %d: %s", code, stderr)
	}

	os.WriteFile(w, []byte(`tiers:
  smoke:
    model: closed
    users: 1
    duration: 300ms
    rounds: 2
    thresholds:
      latency: ["p(99)<1ns"]
    ceiling:
      latency: ["p(99)<1ns"]
`), 0o644)
	code, stderr = capture(t, "load", "--in-process", "--prometheus", "off", "--workload", w, "--out", dir, "--run-id", "busy", "--progress", "lines",
		"--compare-storage", "memory")
	if code != exitLoadInconclusive {
		t.Fatalf("exit %d, want %d: %s", code, exitLoadInconclusive, stderr)
	}
	if !strings.Contains(stderr, "inconclusive: the machine could not sustain the tier: the no-op ceiling's latency p(99)") {
		t.Errorf("stderr does not say why: %s", stderr)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "busy", "load.md"))
	card, _ := os.ReadFile(filepath.Join(dir, "busy", "scorecard.json"))
	if !strings.Contains(string(md), "## Inconclusive") || !strings.Contains(string(card), `"inconclusive": true`) ||
		!strings.Contains(string(card), `"verdict": "inconclusive"`) {
		t.Errorf("load.md or scorecard.json does not carry the inconclusive verdict:\n%s", card)
	}
}

// TestLoadBaseBuild measures the embedded server beside another build of
// it (--base-build, here a build of this tree) in each era, and judges
// each subject against the other build in its own storage mode and era.
func TestLoadBaseBuild(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "base", "thoughtbox")
	if out, err := exec.Command("go", "build", "-o", bin, "../thoughtbox").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	w := twoSubjectsWorkload(t, dir)
	code, stderr := capture(t, "load", "--prometheus", "off", "--workload", w, "--out", dir, "--run-id", "ab", "--progress", "lines",
		"--compare-storage", "memory", "--era", "both", "--base-build", bin, "--ceiling=false")
	if code != exitLoadPass && (code != exitLoadInconclusive || !strings.Contains(stderr, "no thought call was answered in")) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rep, err := loadreport.ReadReport(filepath.Join(dir, "ab", "load.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tg := range rep.Targets {
		got = append(got, tg.Label)
		if strings.HasPrefix(tg.Label, "memory-base@") != strings.Contains(tg.Address, bin) {
			t.Errorf("%s runs %s", tg.Label, tg.Address)
		}
	}
	want := []string{"memory@2025-11-25", "memory@2026-07-28", "memory-base@2025-11-25", "memory-base@2026-07-28"}
	if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Fatalf("subjects %v, want %v", got, want)
	}
	judged := map[string]string{}
	for _, o := range rep.Relative {
		judged[o.Subject] = o.Reference + " " + o.Status
	}
	if len(judged) != 2 || judged["memory@2025-11-25"] != "memory-base@2025-11-25 passed" || judged["memory@2026-07-28"] != "memory-base@2026-07-28 passed" {
		t.Errorf("judged %v, want each era's memory passed against the base build's in that era", judged)
	}
	// A process's CPU time is read from its CPU-time clock, to the
	// nanosecond: every round in which the server answered has a CPU
	// ratio, even when it used less than one of /proc's 10 ms clock ticks
	// (as a server may, in a round of 300 ms on a busy runner). A round
	// that answered nothing has none; two rounds still give an interval.
	cpu := 0
	for _, x := range rep.Ratios {
		if x.Versus == "baseline" && x.Figure == "cpu_per_call" && len(x.Rounds) >= 2 {
			cpu++
		}
	}
	if cpu != 2 {
		t.Errorf("%d CPU-per-call ratios to the base build over 2 or 3 rounds, want 2: %+v", cpu, rep.Ratios)
	}
}
