package tmpfile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestRemoveStray: the temporary files of a dead writer go, a live
// writer's stay, and this process's own go with RemoveStray (a dead
// process's id given again) but stay with RemoveStrayOfOthers (it may be
// writing them); other files and directories are never touched.
func TestRemoveStray(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	live := exec.Command("sleep", "30")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer live.Process.Kill()
	names := map[string]string{
		"dead": fmt.Sprintf("001.json.%d-7%s", cmd.Process.Pid, Suffix),
		"live": fmt.Sprintf("002.json.%d-7%s", live.Process.Pid, Suffix),
		"own":  fmt.Sprintf("003.json.%d-7%s", os.Getpid(), Suffix),
		"old":  "004.json" + Suffix, // no writer named: stray
		"file": "005.json",
	}
	for _, c := range []struct {
		remove func(string) int
		gone   []string
	}{{RemoveStrayOfOthers, []string{"dead", "old"}}, {RemoveStray, []string{"dead", "old", "own"}}} {
		dir := t.TempDir()
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Mkdir(filepath.Join(dir, "branch"+Suffix), 0o700); err != nil {
			t.Fatal(err)
		}
		if n := c.remove(dir); n != len(c.gone) {
			t.Errorf("removed %d, want %d", n, len(c.gone))
		}
		for k, n := range names {
			_, err := os.Stat(filepath.Join(dir, n))
			if gone := os.IsNotExist(err); gone != slices.Contains(c.gone, k) {
				t.Errorf("%s (%s): removed %v", k, n, gone)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "branch"+Suffix)); err != nil {
			t.Errorf("a directory was removed: %v", err)
		}
	}
}
