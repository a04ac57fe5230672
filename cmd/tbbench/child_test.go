package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// TestChildServersDoNotRunGo: godog's initialisation runs `go env` in every
// process that links it, tbbench and this test binary alike; a child
// reference server is started without a Go toolchain's directory on its
// PATH, so it does not.
func TestChildServersDoNotRunGo(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "go-ran")
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte("#!/bin/sh\necho \"$@\" >>"+marker+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "gofmt"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	// The control: this binary, started with that PATH, runs the fake go.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(exe, "-test.run=^$").CombinedOutput(); err != nil {
		t.Fatalf("%s -test.run=^$: %v\n%s", exe, err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("this binary did not run the fake go at start-up (%v): the test cannot tell a child that runs it from one that does not", err)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	tg, err := embedded.New(ctx, embedded.Options{Transport: target.Stdio, Storage: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	c, err := target.Connect(ctx, tg, transcript.Discard(), target.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := c.Gateway(ctx, "get_state", nil); err != nil || res.IsError {
		t.Fatalf("get_state: %v", err)
	}
	c.Close()
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("a child reference server ran go (%q)", b)
	}
}
