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

// RemoveStray deletes the temporary files directly inside dir whose writer
// is no longer running and returns how many it removed. Files named with
// this process's id count as stray too: at start-up they are a dead
// process's whose id this one was given again.
func RemoveStray(dir string) int { return removeStray(dir, false) }

// RemoveStrayOfOthers is RemoveStray for a process that may be writing in
// dir meanwhile: it spares the files named with its own id.
func RemoveStrayOfOthers(dir string) int { return removeStray(dir, true) }

func removeStray(dir string, spareOwn bool) int {
	d, err := os.Open(dir)
	if err != nil {
		return 0
	}
	// Names alone, unsorted: start-up reads every session's directory.
	names, _ := d.Readdirnames(-1)
	d.Close()
	removed := 0
	for _, name := range names {
		if !Stray(name) || spareOwn && writerOf(name) == os.Getpid() {
			continue
		}
		path := filepath.Join(dir, name)
		if fi, err := os.Lstat(path); err != nil || fi.IsDir() {
			continue
		}
		if os.Remove(path) == nil {
			removed++
		}
	}
	return removed
}

// Stray reports whether name is the name of a temporary file whose writer
// is no longer running.
func Stray(name string) bool { return strings.HasSuffix(name, Suffix) && !writerAlive(name) }

// writerAlive reports whether the temporary file's name names another
// process that is still running.
func writerAlive(name string) bool {
	pid := writerOf(name)
	if pid <= 0 || pid == os.Getpid() {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// writerOf returns the process id a temporary file's name carries (0 when
// it carries none).
func writerOf(name string) int {
	rest := strings.TrimSuffix(name, Suffix)
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return 0
	}
	pidText, _, ok := strings.Cut(rest[i+1:], "-")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil {
		return 0
	}
	return pid
}
