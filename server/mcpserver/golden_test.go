package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/thoughtbox-bench/tbbench/fixtures"
)

// player plays fixtures through a test client.
type player struct{ m *mcpClient }

func (p player) Gateway(_ context.Context, op string, args json.RawMessage) (fixtures.Answer, error) {
	var a any
	if args != nil {
		a = args
	}
	r := p.m.gateway(op, a)
	return fixtures.Answer{IsError: r.IsError, Text: r.Text, Blocks: r.Blocks}, nil
}

func (p player) Export(_ context.Context, path, _ string) ([]byte, error) { return os.ReadFile(path) }

// runFixture plays one golden sequence in a fresh MCP session and fails the
// test on every difference, intent-only paths included (the reference server
// must meet the intent).
func runFixture(t *testing.T, m *mcpClient, f fixtures.Fixture) fixtures.Bindings {
	t.Helper()
	parent := m.t
	m.t = t
	defer func() { m.t = parent }()
	m.ready()
	res, err := fixtures.Play(context.Background(), f, player{m}, uuid.NewString()[:8])
	if err != nil {
		t.Fatal(err)
	}
	for _, mm := range append(res.Core, res.Intent...) {
		t.Errorf("%s", mm)
	}
	return res.Bindings
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
