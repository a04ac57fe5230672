package fsinfo

import (
	"os"
	"runtime"
	"testing"
	"testing/fstest"
)

const mountinfo = `22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard
23 22 0:21 / /proc rw,nosuid shared:2 - proc proc rw
24 22 0:22 / /dev/shm rw,nosuid shared:3 - tmpfs tmpfs rw
40 22 7:0 / /mnt/j rw,relatime shared:20 - ext4 /dev/loop0 rw
41 22 7:1 / /mnt/with\040space rw,relatime shared:21 - ext4 /dev/mapper/vg-data rw
42 22 0:40 / /srv rw - xfs /dev/sdb1 rw
43 42 0:41 / /srv rw - tmpfs tmpfs rw
`

// Each directory gets the mount that holds it (the longest mount point, the
// last of equal ones), and ext4 its journal as jbd2 lists it.
func TestDescribe(t *testing.T) {
	proc := fstest.MapFS{
		"self/mountinfo":  {Data: []byte(mountinfo)},
		"fs/jbd2/loop0-8": {Mode: os.ModeDir},
		"fs/jbd2/dm-3-8":  {Mode: os.ModeDir},
		"fs/jbd2/vdab-8":  {Mode: os.ModeDir}, // another device whose name starts like vda's
	}
	real := func(dev string) string {
		if dev == "/dev/mapper/vg-data" {
			return "/dev/dm-3"
		}
		return dev
	}
	for _, c := range []struct{ dir, want, source string }{
		{"/tmp/tbbench-data-1", "ext4 without a journal", "/dev/vda"},
		{"/", "ext4 without a journal", "/dev/vda"},
		{"/mnt/j/d.1", "ext4 with a journal", "/dev/loop0"},
		{"/mnt/jj", "ext4 without a journal", "/dev/vda"},
		{"/mnt/with space/x", "ext4 with a journal", "/dev/mapper/vg-data"},
		{"/dev/shm", "tmpfs", "tmpfs"},
		{"/srv/data", "tmpfs", "tmpfs"},
	} {
		got, err := describe(proc, c.dir, real)
		if err != nil || got.String() != c.want || got.Source != c.source {
			t.Errorf("%s: %q on %q (%v), want %q on %q", c.dir, got, got.Source, err, c.want, c.source)
		}
	}
	// Without /proc/fs/jbd2 the journal is unknown, not absent.
	delete(proc, "fs/jbd2/loop0-8")
	delete(proc, "fs/jbd2/dm-3-8")
	delete(proc, "fs/jbd2/vdab-8")
	if got, _ := describe(proc, "/mnt/j", real); got.Journal != nil || got.String() != "ext4" {
		t.Errorf("no jbd2 directory: %q, journal %v; want ext4, unknown", got, got.Journal)
	}
	if _, err := describe(fstest.MapFS{"self/mountinfo": {Data: []byte("garbage\n")}}, "/tmp", real); err == nil {
		t.Error("no mount in the mountinfo: no error")
	}
}

// On Linux a real directory's file system has a type; elsewhere Describe
// cannot tell and says nothing.
func TestDescribeHere(t *testing.T) {
	got := Describe(t.TempDir())
	if runtime.GOOS == "linux" && got.Type == "" {
		t.Errorf("Describe(a temporary directory) = %+v: no type", got)
	}
	if runtime.GOOS != "linux" && got != (FileSystem{}) {
		t.Errorf("Describe outside Linux = %+v, want nothing", got)
	}
}
