package fsstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// tmpSuffix marks files being written; a file with it is never read and is
// removed at start-up.
const tmpSuffix = ".tmp"

// writeAtomic writes v as pretty JSON to path through a temporary file and a
// rename, so readers see either the old or the new content, never a torn one.
func writeAtomic(path string, v any) error {
	data, err := jsonx.Pretty(v)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, data)
}

func writeFileAtomic(path string, data []byte) error {
	pattern := filepath.Base(path) + "." + strconv.Itoa(os.Getpid()) + "-"
	fd, tmp, err := createTemp(filepath.Dir(path), pattern, tmpSuffix)
	if errors.Is(err, os.ErrNotExist) {
		// First file of a branch: create its directory.
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			fd, tmp, err = createTemp(filepath.Dir(path), pattern, tmpSuffix)
		}
	}
	if err != nil {
		return err
	}
	werr := sysWrite(fd, tmp, data)
	merr := syscall.Fchmod(fd, 0o644)
	cerr := sysClose(fd, tmp)
	if err := errors.Join(werr, merr, cerr); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := sysRename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// readJSON decodes the JSON file at path into v.
func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}

// thoughtFile is the file name of thought n: the number padded to three digits.
func thoughtFile(n int) string { return fmt.Sprintf("%03d.json", n) }

// relPath is the path of a thought file relative to its session directory.
func relPath(branchID string, n int) string {
	if branchID == "" {
		return thoughtFile(n)
	}
	return "branches/" + branchID + "/" + thoughtFile(n)
}

// removeStrayTemps deletes leftover temporary files directly inside dir and
// returns how many it removed. Temporary names carry the writer's process id
// ("001.json.<pid>-<random>.tmp"); files of a process that is still running
// are in flight, not strays, because several servers may share a data
// directory (stdio clients often start one each).
func removeStrayTemps(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), tmpSuffix) || writerAlive(e.Name()) {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			removed++
		}
	}
	return removed
}

// writerAlive reports whether the temporary file's name names another
// process that is still running.
func writerAlive(name string) bool {
	rest := strings.TrimSuffix(name, tmpSuffix)
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return false
	}
	pidText, _, ok := strings.Cut(rest[i+1:], "-")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	err = syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
