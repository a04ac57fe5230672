package steps

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// A file written under a temporary name, closed and renamed into place is
// seen as renamed, never as written under its final name, even when a
// child process still holds a copy of its descriptor and closes it last,
// after the rename (as a child forked while the file was open does at its
// exec): the kernel reports that last close under the final name.
func TestWatchSeesALateCloseOfARenamedFileAsNoWrite(t *testing.T) {
	dir := t.TempDir()
	stop, err := watchDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	tmp, final := filepath.Join(dir, "002.json.1-2.tmp"), filepath.Join(dir, "002.json")
	fd, err := syscall.Open(tmp, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL, 0o600) // no O_CLOEXEC: the child inherits it
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command("sleep", "0.3")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := syscall.Write(fd, []byte(`{"thoughtNumber": 2}`)); err != nil {
		t.Fatal(err)
	}
	syscall.Close(fd)
	if err := syscall.Rename(tmp, final); err != nil {
		t.Fatal(err)
	}
	if err := child.Wait(); err != nil { // its copy of the descriptor closes here
		t.Fatal(err)
	}
	events, err := stop()
	if err != nil {
		t.Fatal(err)
	}
	renamed := false
	for _, e := range events {
		if e.name == "002.json" {
			switch e.kind {
			case fileMovedIn:
				renamed = true
			case fileCreated, fileWritten:
				t.Errorf("%s: the watch took a late close for a write under the final name (events %+v)", e.describe(), events)
			}
		}
	}
	if !renamed {
		t.Errorf("the rename into place was not seen: %+v", events)
	}
}
