package targetspec_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// TestStorageModes accepts every storage backend of the embedded server and
// refuses another one naming them.
func TestStorageModes(t *testing.T) {
	for _, mode := range targetspec.StorageModes {
		if err := (targetspec.Spec{Storage: mode}).Validate(); err != nil {
			t.Errorf("--storage %s: %v", mode, err)
		}
	}
	err := targetspec.Spec{Storage: "postgres"}.Validate()
	if err == nil || !strings.Contains(err.Error(), "fs, memory, sqlite") {
		t.Errorf("--storage postgres: %v", err)
	}
}

// --data-dir names the data of the embedded server or a command's; a URL
// server's is not the harness's to know, and is refused, naming the value.
func TestDataDirIsForEmbeddedAndCommandServers(t *testing.T) {
	for _, s := range []targetspec.Spec{{DataDir: "/d"}, {Command: "srv --data {tmpdir}", DataDir: "{tmpdir}"}} {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
	err := targetspec.Spec{URL: "http://127.0.0.1:9/mcp", DataDir: "/d"}.Validate()
	if err == nil || !strings.Contains(err.Error(), `--data-dir "/d"`) {
		t.Errorf("--data-dir with --url: %v", err)
	}
}

// TestURLMustBeAnHTTPEndpoint refuses, naming the value, a --url that is
// not http(s)://HOST/PATH, before any connection is tried; {port} stands
// for a command's port.
func TestURLMustBeAnHTTPEndpoint(t *testing.T) {
	for _, s := range []targetspec.Spec{
		{URL: "http://127.0.0.1:1731/mcp"},
		{URL: "https://example.test/mcp"},
		{Command: "srv --port {port}", URL: "http://127.0.0.1:{port}/mcp", Transport: "http"},
	} {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
	for _, bad := range []string{"ftp://x/mcp", "http://", "127.0.0.1:1731/mcp", "http:mcp", "localhost/mcp", "http://[::1/mcp"} {
		err := targetspec.Spec{URL: bad}.Validate()
		if err == nil || !strings.Contains(err.Error(), "--url "+strconv.Quote(bad)) {
			t.Errorf("--url %s: %v", bad, err)
		}
		err = targetspec.Spec{Command: "srv", URL: bad, Transport: "http"}.Validate()
		if err == nil || !strings.Contains(err.Error(), "--url "+strconv.Quote(bad)) {
			t.Errorf("--command with --url %s: %v", bad, err)
		}
	}
}

// TestEmbeddedSQLiteRestartKeepsData restarts an embedded server on SQLite
// storage: its session is still there, its storage reported.
func TestEmbeddedSQLiteRestartKeepsData(t *testing.T) {
	ctx := context.Background()
	tg, err := targetspec.Spec{Storage: "sqlite", Direct: true}.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if info := tg.Info(); info.Storage != "sqlite" {
		t.Errorf("storage %q", info.Storage)
	}
	c, err := target.Connect(ctx, tg, transcript.Discard(), target.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"start_new", "cipher"} {
		if res, err := c.Gateway(ctx, op, map[string]any{"newWork": map[string]any{"project": "p"}}); err != nil || res.IsError {
			t.Fatalf("%s: %v %s", op, err, res.Text())
		}
	}
	res, err := c.Gateway(ctx, "thought", map[string]any{"thought": "kept in sqlite", "nextThoughtNeeded": false})
	if err != nil || res.IsError {
		t.Fatalf("thought: %v %s", err, res.Text())
	}
	c.Close()
	r, ok := target.As[target.Restarter](tg)
	if !ok {
		t.Fatal("the embedded target cannot restart")
	}
	if err := r.Restart(ctx, false); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	c, err = target.Connect(ctx, tg, transcript.Discard(), target.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if res, err := c.Gateway(ctx, "start_new", map[string]any{"newWork": map[string]any{"project": "p"}}); err != nil || res.IsError {
		t.Fatalf("start_new: %v %s", err, res.Text())
	}
	if res, err := c.Gateway(ctx, "cipher", nil); err != nil || res.IsError {
		t.Fatalf("cipher: %v %s", err, res.Text())
	}
	res, err = c.Gateway(ctx, "session", map[string]any{"operation": "list"})
	if err != nil || res.IsError || !strings.Contains(res.Text(), "thoughtCount") {
		t.Fatalf("session list after restart: %v %s", err, res.Text())
	}
	if strings.Contains(res.Text(), `"sessions": []`) {
		t.Errorf("no session after restart: %s", res.Text())
	}
}
