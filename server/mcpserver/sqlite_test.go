package mcpserver_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// The crash tests of the fs backend, run on the SQLite backend: a server
// killed with SIGKILL while three connections write loses no acknowledged
// thought, and two server processes sharing one database, killed in turn
// while writers move their sessions between them, lose nothing and report
// no false damage.

func TestSQLiteKillNineLosesNoAcknowledgedThought(t *testing.T) {
	killNineLosesNothing(t, "THOUGHTBOX_STORAGE=sqlite")
}

func TestSQLiteKillNineCyclesWithTwoProcesses(t *testing.T) { killNineCycles(t, "sqlite") }

// TestSQLiteForeignFileStopsTheStart puts a file that is not a session
// database where the project's database belongs: the server does not start,
// says which file and what to do, and leaves the file as it was.
func TestSQLiteForeignFileStopsTheStart(t *testing.T) {
	cfg := testConfig(t, "sqlite")
	path := filepath.Join(cfg.DataDir, "projects", cfg.Project, "sessions.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	content := []byte("a spreadsheet, say\n")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(cfg)
	if err == nil {
		srv.Close()
		t.Fatal("the server started on a file that is not its database")
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "Recovery options") {
		t.Errorf("start-up error without the file or the way out: %v", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, content) {
		t.Error("the file was changed")
	}
}

// TestStorageSettingListsTheBackends refuses an unknown backend naming the
// three valid ones.
func TestStorageSettingListsTheBackends(t *testing.T) {
	cfg := testConfig(t, "postgres")
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "fs, memory or sqlite") {
		t.Errorf("validation of THOUGHTBOX_STORAGE=postgres: %v", err)
	}
	cfg.Storage = "sqlite"
	if err := cfg.Validate(); err != nil {
		t.Errorf("sqlite refused: %v", err)
	}
}
