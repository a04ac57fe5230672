// Package fsinfo names the file system a directory lives on and whether it
// keeps a journal. A storage mode that creates files costs what the file
// system makes a new file cost: on ext4 without a journal, an inode freed in
// the last minute is not handed out again, and creating a file walks past
// every such inode one by one, so after many deletions a new file can cost
// a millisecond of CPU (docs/figures.md). Load reports name the file system
// of each subject's data directory, so that a reader can tell.
package fsinfo

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// FileSystem describes the file system a directory is on.
type FileSystem struct {
	// Type is the mount's file system type (ext4, xfs, tmpfs, ...).
	Type string `json:"type"`
	// Source is the mount's source (a device such as /dev/vda).
	Source string `json:"source,omitempty"`
	// Journal tells, for ext3 and ext4, whether the file system keeps a
	// journal; nil for other types, or when it cannot be told.
	Journal *bool `json:"journal,omitempty"`
}

// String names the file system, with its journal when that is known:
// "ext4 without a journal", "ext4 with a journal", "tmpfs"; "" when the
// file system is unknown.
func (f FileSystem) String() string {
	switch {
	case f.Type == "":
		return ""
	case f.Journal == nil:
		return f.Type
	case *f.Journal:
		return f.Type + " with a journal"
	default:
		return f.Type + " without a journal"
	}
}

// mount is one line of /proc/self/mountinfo.
type mount struct {
	point, fstype, source string
}

// describe finds the mount that holds dir (absolute, symbolic links
// resolved) in the mountinfo and jbd2 files of proc, a file system rooted
// at /proc; realDevice resolves a device path's symbolic links.
func describe(proc fs.FS, dir string, realDevice func(string) string) (FileSystem, error) {
	b, err := fs.ReadFile(proc, "self/mountinfo")
	if err != nil {
		return FileSystem{}, err
	}
	var best mount
	found := false
	for _, line := range strings.Split(string(b), "\n") {
		m, ok := parseMountinfo(line)
		if !ok || !within(dir, m.point) {
			continue
		}
		// The longest mount point that holds dir; of equal ones, the last
		// (a mount over another hides it).
		if !found || len(m.point) >= len(best.point) {
			best, found = m, true
		}
	}
	if !found {
		return FileSystem{}, fmt.Errorf("no mount holds %s", dir)
	}
	out := FileSystem{Type: best.fstype, Source: best.source}
	if best.fstype == "ext3" || best.fstype == "ext4" {
		out.Journal = journal(proc, path.Base(realDevice(best.source)))
	}
	return out, nil
}

// journal tells whether the ext3/4 file system on device keeps a journal:
// jbd2 lists each journal it runs as /proc/fs/jbd2/<device>-<inode>. nil
// when /proc/fs/jbd2 cannot be read.
func journal(proc fs.FS, device string) *bool {
	entries, err := fs.ReadDir(proc, "fs/jbd2")
	if err != nil {
		return nil
	}
	has := false
	for _, e := range entries {
		if name, _, ok := cutLast(e.Name(), "-"); ok && name == device {
			has = true
		}
	}
	return &has
}

// parseMountinfo reads one line of /proc/self/mountinfo: "36 35 98:0 /mnt1
// /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue".
func parseMountinfo(line string) (mount, bool) {
	pre, post, ok := strings.Cut(line, " - ")
	if !ok {
		return mount{}, false
	}
	f, g := strings.Fields(pre), strings.Fields(post)
	if len(f) < 5 || len(g) < 2 {
		return mount{}, false
	}
	return mount{point: unescape(f[4]), fstype: g[0], source: unescape(g[1])}, true
}

// unescape undoes mountinfo's octal escapes (\040 for a space, \011, \012,
// \134).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// within reports whether dir is point or below it.
func within(dir, point string) bool {
	if point == "/" {
		return strings.HasPrefix(dir, "/")
	}
	return dir == point || strings.HasPrefix(dir, point+"/")
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}
