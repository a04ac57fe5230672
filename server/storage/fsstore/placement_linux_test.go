//go:build linux

package fsstore

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/thoughtbox-bench/tbbench/server/placement"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// TestSessionsSpread checks that the directory receiving new session
// directories carries the Orlov top-directory flag where the filesystem
// supports it.
func TestSessionsSpread(t *testing.T) {
	dir := t.TempDir()
	probe := filepath.Join(dir, "probe")
	spreadSessions(probe)
	if !hasTopdir(t, probe) {
		t.Skip("the temporary directory's filesystem does not keep FS_TOPDIR_FL")
	}
	s, err := Open(filepath.Join(dir, "data"), "_default", WithFlushInterval(0), WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.Create(storage.CreateParams{Title: "Spread"})
	if err != nil {
		t.Fatal(err)
	}
	sdir, _ := s.SessionDir(c.ID())
	if !hasTopdir(t, filepath.Dir(sdir)) {
		t.Errorf("partition %s lacks FS_TOPDIR_FL", filepath.Dir(sdir))
	}
	if hasTopdir(t, sdir) {
		t.Errorf("session directory %s has FS_TOPDIR_FL; only its parent should", sdir)
	}
}

func hasTopdir(t *testing.T, dir string) bool {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	return err == nil && flags&placement.FSTopdirFL != 0
}
