package steps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thoughtbox-bench/tbbench/harness/profile"
)

// The files of the reference layout (the layout of 1.2.2) in a session
// directory: the manifest, and the thought files it lists.
const manifestName = "manifest.json"

var thoughtFileName = regexp.MustCompile(`^\d{3,}\.json$`)

// committedFile reports whether a name in a session directory is one of the
// files the reference layout commits: the manifest or a thought file.
func committedFile(name string) bool {
	return name == manifestName || thoughtFileName.MatchString(name)
}

// fileState is a file as a step saw it: its inode and its content, and the
// file held open, so that its inode is not freed and given to a new file
// while the step looks (a file rewritten through a rename then always has
// another inode).
type fileState struct {
	inode uint64
	data  []byte
	held  *os.File
}

// fileSnapshot are the committed files of a session directory, by path
// relative to it.
type fileSnapshot map[string]fileState

// lacksLayout makes the scenario not applicable: the target's data
// directory does not hold the reference layout the file steps look at.
func (w *World) lacksLayout(dir, why string) error {
	w.notApplicable("reference file layout in its data directory (a session directory with manifest.json listing NNN.json thought files): " + why)
	return fmt.Errorf("session directory %s: %s", dir, why)
}

// notApplicable makes the scenario not applicable for want of what (the
// After hook reports a scenario whose family lacks something so).
func (w *World) notApplicable(what string) {
	name := "gateway"
	if w.env.Profile != nil {
		name = w.env.Profile.Name()
	}
	w.lacks = &profile.LacksError{Profile: name, What: what}
}

// manifestLists reports whether the session's manifest lists the
// main-chain thought file name.
func manifestLists(dir, name string) bool {
	var m struct {
		ThoughtFiles []string `json:"thoughtFiles"`
	}
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil || json.Unmarshal(data, &m) != nil {
		return false
	}
	return slices.Contains(m.ThoughtFiles, name)
}

// settleWait is how long the file steps wait for a server to write the
// files of an acknowledged thought (it may write them after the answer).
const settleWait = 10 * time.Second

// waitListed waits until the manifest lists thought n of the main chain.
func (w *World) waitListed(dir string, n int) error {
	name := fmt.Sprintf("%03d.json", n)
	for end := time.Now().Add(settleWait); ; time.Sleep(5 * time.Millisecond) {
		if manifestLists(dir, name) && fileExists(filepath.Join(dir, name)) {
			return nil
		}
		if time.Now().After(end) {
			if !fileExists(filepath.Join(dir, manifestName)) {
				return w.lacksLayout(dir, "there is no "+manifestName)
			}
			return fmt.Errorf("%s of %s does not list %s, or the file is missing, %s after the thought was acknowledged", manifestName, dir, name, settleWait)
		}
	}
}

// snapshotFiles reads the committed files of a session directory (its
// branches' too).
func snapshotFiles(dir string) (fileSnapshot, error) {
	snap := fileSnapshot{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !committedFile(d.Name()) {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		var st unix.Stat_t
		data, err := io.ReadAll(f)
		if err == nil {
			err = unix.Fstat(int(f.Fd()), &st)
		}
		if err != nil {
			f.Close()
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		snap[rel] = fileState{inode: st.Ino, data: data, held: f}
		return nil
	})
	if err != nil {
		snap.release()
	}
	return snap, err
}

// release closes the files a snapshot holds open.
func (s fileSnapshot) release() {
	for _, f := range s {
		f.held.Close()
	}
}

// lastNumber is the thought number of the last thought answer.
func (w *World) lastNumber() (int, error) {
	m, err := w.answer()
	if err != nil || w.last.IsError {
		return 0, fmt.Errorf("the last thought was not acknowledged: %s", clipText(w.last.Text()))
	}
	n, ok := m["thoughtNumber"].(float64)
	if !ok {
		return 0, fmt.Errorf("the thought answer has no thoughtNumber: %s", clipText(w.last.Text()))
	}
	return int(n), nil
}

// sessionFilesDir finds the reasoning session's directory once its
// manifest lists the last thought recorded.
func (w *World) sessionFilesDir() (string, error) {
	sid, err := w.sid()
	if err != nil {
		return "", err
	}
	n, err := w.lastNumber()
	if err != nil {
		return "", err
	}
	dir, err := w.sessionDir(sid)
	if err != nil {
		return "", w.lacksLayout(w.env.Target.Info().DataDir, err.Error())
	}
	return dir, w.waitListed(dir, n)
}

func (w *World) noteSessionFiles() error {
	dir, err := w.sessionFilesDir()
	if err != nil {
		return err
	}
	snap, err := snapshotFiles(dir)
	if err != nil {
		return err
	}
	w.restarts.dir, w.restarts.files = dir, snap
	w.rec.Notef("noted %d files of %s", len(snap), dir)
	return nil
}

// changedFilesAreNew waits until the manifest lists the thought just
// recorded, then checks that every file whose content changed since the
// files were noted is another inode: it was written to a new file and
// renamed over the old one, so a reader (or a crash) never sees it half
// written.
func (w *World) changedFilesAreNew() error {
	if w.restarts.files == nil {
		return errors.New("the files of the session were not noted")
	}
	n, err := w.lastNumber()
	if err != nil {
		return err
	}
	dir := w.restarts.dir
	if err := w.waitListed(dir, n); err != nil {
		return err
	}
	defer w.restarts.files.release()
	now, err := snapshotFiles(dir)
	if err != nil {
		return err
	}
	defer now.release()
	var changed, inPlace []string
	for rel, before := range w.restarts.files {
		after, ok := now[rel]
		if !ok || bytes.Equal(before.data, after.data) {
			continue
		}
		changed = append(changed, rel)
		if after.inode == before.inode {
			inPlace = append(inPlace, rel)
		}
	}
	sort.Strings(changed)
	sort.Strings(inPlace)
	if !slices.Contains(changed, manifestName) {
		return fmt.Errorf("the thought changed no %s (changed: %v); the check needs a rewritten file", manifestName, changed)
	}
	if len(inPlace) > 0 {
		return fmt.Errorf("rewritten in place (the same inode with new content): %s", strings.Join(inPlace, ", "))
	}
	w.rec.Notef("rewritten as new files: %s", strings.Join(changed, ", "))
	return nil
}

// fileEvent is one change the watch saw in a session directory.
type fileEvent struct {
	name string
	kind eventKind
}

// eventKind is what happened to a file.
type eventKind int

// The changes a watch reports.
const (
	fileCreated   eventKind = iota // created under its name
	fileWritten                    // written
	fileMovedAway                  // renamed away from its name
	fileMovedIn                    // renamed to its name
	fileRemoved                    // removed
)

// errNoWatch is watchDir's error where the harness can not watch a
// directory's writes (inotify is Linux's).
var errNoWatch = errors.New("the harness watches the order of a server's writes with inotify, on Linux only")

// recordWatched records one main-chain thought while the session directory
// is watched, until the manifest lists the thought's file.
func (w *World) recordWatched() error {
	dir, err := w.sessionFilesDir()
	if err != nil {
		return err
	}
	stop, err := watchDir(dir)
	if errors.Is(err, errNoWatch) {
		w.notApplicable("watch of the order of its writes here: " + err.Error())
		return err
	}
	if err != nil {
		return err
	}
	events, err := w.recordThenStop(dir, stop)
	if err != nil {
		return err
	}
	w.restarts.dir, w.restarts.watch = dir, events
	w.rec.Notef("%d file events in %s while %s was written", len(events), dir, w.restarts.watched)
	return nil
}

// recordThenStop records the thought, waits for its file to be listed and
// returns what the watch saw.
func (w *World) recordThenStop(dir string, stop func() ([]fileEvent, error)) ([]fileEvent, error) {
	err := w.recordN(1)
	var n int
	if err == nil {
		n, err = w.lastNumber()
	}
	if err == nil {
		err = w.waitListed(dir, n)
	}
	events, serr := stop()
	if err != nil {
		return nil, err
	}
	w.restarts.watched = fmt.Sprintf("%03d.json", n)
	return events, serr
}

// describe names an event's kind.
func (e fileEvent) describe() string {
	switch e.kind {
	case fileMovedIn:
		return "renamed to " + e.name
	case fileMovedAway:
		return "renamed away from " + e.name
	case fileCreated:
		return "created " + e.name
	case fileRemoved:
		return "removed " + e.name
	}
	return "wrote " + e.name
}

// committedByRename checks that no manifest or thought file was created or
// written under its own name while the thought was recorded: each was
// written to another name and renamed into place, and the write committed
// at least the new thought's file and the manifest so.
func (w *World) committedByRename() error {
	if w.restarts.watched == "" {
		return errors.New("no write was watched")
	}
	var inPlace []string
	renamed := map[string]bool{}
	for _, e := range w.restarts.watch {
		if !committedFile(e.name) {
			continue
		}
		switch e.kind {
		case fileMovedIn:
			renamed[e.name] = true
		case fileCreated, fileWritten:
			inPlace = append(inPlace, e.describe())
		}
	}
	var problems []string
	if len(inPlace) > 0 {
		problems = append(problems, "written under their own names, not renamed into place: "+strings.Join(slices.Compact(inPlace), ", "))
	}
	for _, name := range []string{w.restarts.watched, manifestName} {
		if !renamed[name] {
			problems = append(problems, name+" was not committed by a rename")
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// thoughtBeforeManifest checks the order of the commits: the new thought's
// file took its final content (its last rename into place, with no removal
// after it) before the manifest that lists it did, so a crash between the
// two never leaves a manifest listing a file that is missing.
func (w *World) thoughtBeforeManifest() error {
	name := w.restarts.watched
	if name == "" {
		return errors.New("no write was watched")
	}
	thought, manifest := -1, -1
	var order []string
	for i, e := range w.restarts.watch {
		if !committedFile(e.name) {
			continue
		}
		order = append(order, e.describe())
		switch {
		case e.name == manifestName && e.kind == fileMovedIn:
			manifest = i
		case e.name == name && e.kind == fileMovedIn:
			thought = i
		case e.name == name && (e.kind == fileRemoved || e.kind == fileMovedAway):
			thought = -1
		}
	}
	switch {
	case manifest < 0:
		return fmt.Errorf("%s was not committed by a rename; the order is unknown (events: %s)", manifestName, strings.Join(order, ", "))
	case thought < 0:
		return fmt.Errorf("%s was not left in place by a rename (events: %s)", name, strings.Join(order, ", "))
	case thought > manifest:
		return fmt.Errorf("%s was committed after the manifest that lists it (events: %s)", name, strings.Join(order, ", "))
	}
	return nil
}
