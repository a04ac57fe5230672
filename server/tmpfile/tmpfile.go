// Package tmpfile names the temporary files written before a rename and
// removes the ones left behind by a process that died. A temporary name
// carries its writer's process id ("001.json.<pid>-<random>.tmp"), so a
// start-up never removes the files of another live server sharing the
// directory.
package tmpfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Suffix marks temporary files; a file with it is never read.
const Suffix = ".tmp"

// Prefix starts the name of a temporary file of base written by this
// process; a random part and Suffix follow.
func Prefix(base string) string { return base + "." + strconv.Itoa(os.Getpid()) + "-" }

// Pattern is the os.CreateTemp pattern for a temporary file of base
// written by this process.
func Pattern(base string) string { return Prefix(base) + "*" + Suffix }

// RemoveStray deletes the temporary files directly inside dir whose writer
// is no longer running and returns how many it removed.
func RemoveStray(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), Suffix) || writerAlive(e.Name()) {
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
	rest := strings.TrimSuffix(name, Suffix)
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
