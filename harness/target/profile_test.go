package target

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestStartChildProfileWritesCPUAndAllocations: with ProfileEnv set, a
// child writes its CPU profile and its allocations, each a gzipped pprof
// profile; without it, nothing.
func TestStartChildProfileWritesCPUAndAllocations(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(ProfileEnv, filepath.Join(dir, "child"))
	StartChildProfile("test")()
	for _, suffix := range []string{".pprof", ".allocs.pprof"} {
		path := filepath.Join(dir, fmt.Sprintf("child.%d%s", os.Getpid(), suffix))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			t.Errorf("%s is not a gzipped profile: %.20q", path, data)
		}
	}
	t.Setenv(ProfileEnv, "")
	StartChildProfile("test")()
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files after a child without %s, want the 2 written before", len(entries), ProfileEnv)
	}
}
