package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/thoughtbox-bench/tbbench/fixtures"
)

// runFixture plays one golden sequence in a fresh MCP session and fails the
// test on every difference, intent-only paths included (the reference server
// must meet the intent).
func runFixture(t *testing.T, m *mcpClient, f fixtures.Fixture) fixtures.Bindings {
	t.Helper()
	parent := m.t
	m.t = t
	defer func() { m.t = parent }()
	m.ready()
	nonce := uuid.NewString()[:8]
	b := fixtures.Bindings{}
	for i, step := range f.Steps {
		label := step.Label
		if label == "" {
			label = fmt.Sprintf("step%d:%s", i+1, step.Operation)
			if step.Export != "" {
				label = fmt.Sprintf("step%d:export", i+1)
			}
		}
		var got result
		if step.Export != "" {
			path := b[step.Export]
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%s: reading export %q: %v", label, path, err)
			}
			got = result{Text: string(data)}
		} else {
			var args any
			if len(step.Args) > 0 {
				if err := json.Unmarshal(fixtures.Expand(step.Args, nonce, b), &args); err != nil {
					t.Fatalf("%s: bad args: %v", label, err)
				}
			}
			got = m.gateway(step.Operation, args)
		}
		if got.IsError != step.Expect.IsError {
			t.Fatalf("%s: isError = %v, want %v\n%s", label, got.IsError, step.Expect.IsError, got.Text)
		}
		if step.Expect.Blocks != nil && strings.Join(got.Blocks, ",") != strings.Join(step.Expect.Blocks, ",") {
			t.Errorf("%s: blocks = %q, want %q", label, got.Blocks, step.Expect.Blocks)
		}
		if len(step.Expect.JSON) > 0 {
			for _, mm := range fixtures.MatchJSON(label, fixtures.WithNonce(step.Expect.JSON, nonce), json.RawMessage(got.Text), b) {
				t.Errorf("%s", mm)
			}
		}
	}
	return b
}

func TestGoldenSequences(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 5 {
		t.Fatalf("expected the five golden sequences, found %d", len(all))
	}
	for _, storage := range []string{"memory", "fs"} {
		t.Run("http-"+storage, func(t *testing.T) {
			cfg := testConfig(t, storage)
			_, url := newHTTPServer(t, cfg)
			for _, f := range all {
				t.Run(f.Name, func(t *testing.T) {
					b := runFixture(t, dialHTTP(t, url), f)
					// D9: exports go to <data dir>/exports/<sessionId>-<timestamp>.json.
					want := filepath.Join(cfg.DataDir, "exports", b["sid"]+"-")
					if !strings.HasPrefix(b["exportPath"], want) || !strings.HasSuffix(b["exportPath"], ".json") {
						t.Errorf("exportPath %q, want %s<timestamp>.json", b["exportPath"], want)
					}
				})
			}
		})
	}
	t.Run("stdio-fs", func(t *testing.T) {
		dir := t.TempDir()
		exports := t.TempDir()
		m := dialStdio(t, "THOUGHTBOX_DATA_DIR="+dir, "THOUGHTBOX_EXPORT_DIR="+exports)
		for _, f := range all {
			t.Run(f.Name, func(t *testing.T) {
				b := runFixture(t, m, f)
				if filepath.Dir(b["exportPath"]) != exports {
					t.Errorf("exportPath %q is not in THOUGHTBOX_EXPORT_DIR %s", b["exportPath"], exports)
				}
			})
		}
	})
}
