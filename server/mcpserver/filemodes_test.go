package mcpserver_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// TestDataFilesArePrivate writes a session, closes it and exports it under
// two umasks: every file is 0600 and every directory 0700 at most (the
// reasoning is private to the user), narrower when the umask says so,
// never wider.
func TestDataFilesArePrivate(t *testing.T) {
	for _, mask := range []int{0o022, 0o077, 0o027} {
		old := syscall.Umask(mask)
		cfg := testConfig(t, "fs")
		srv, err := mcpserver.New(cfg, mcpserver.WithLogger(discardLogger()))
		if err != nil {
			syscall.Umask(old)
			t.Fatal(err)
		}
		m := dialHTTP(t, httpServe(t, srv))
		m.ready()
		m.gateway("thought", map[string]any{"thought": "one", "nextThoughtNeeded": true})
		m.gateway("thought", map[string]any{"thought": "side", "branchId": "b", "branchFromThought": 1, "nextThoughtNeeded": true})
		m.gateway("thought", map[string]any{"thought": "two", "nextThoughtNeeded": false})
		m.c.Close()
		_ = srv.Close()
		syscall.Umask(old)
		files := 0
		_ = filepath.WalkDir(cfg.DataDir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || path == cfg.DataDir {
				return err
			}
			fi, _ := os.Stat(path)
			limit := fs.FileMode(0o600)
			if d.IsDir() {
				limit = 0o700
			} else {
				files++
			}
			if want := limit &^ fs.FileMode(mask); fi.Mode().Perm() != want {
				t.Errorf("umask %03o: %s has mode %03o, want %03o", mask, path, fi.Mode().Perm(), want)
			}
			return nil
		})
		if files < 6 {
			t.Errorf("umask %03o: only %d files written", mask, files)
		}
	}
}
