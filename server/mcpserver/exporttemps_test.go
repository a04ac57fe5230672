package mcpserver_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// TestStrayExportTempsAreRemovedAtStart leaves the temporary file of an
// export whose writer died: the next start removes it and keeps exports.
func TestStrayExportTempsAreRemovedAtStart(t *testing.T) {
	cfg := testConfig(t, "fs")
	dir := cfg.ExportDirectory()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(dir, "9e048752-0c71-4b2f-a786-4d1975426e2e-2026-11-22T08-00-00-000Z.json.tmp")
	kept := filepath.Join(dir, "9e048752-0c71-4b2f-a786-4d1975426e2e-2026-11-22T08-00-00-000Z.json")
	for _, f := range []string{stray, kept} {
		if err := os.WriteFile(f, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := mcpserver.New(cfg, mcpserver.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("stray export temporary file survived the start: %v", err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("an export was removed: %v", err)
	}
}
