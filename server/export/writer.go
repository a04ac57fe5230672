package export

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/placement"
	"github.com/thoughtbox-bench/tbbench/server/sysfile"
	"github.com/thoughtbox-bench/tbbench/server/tmpfile"
)

// Writer writes linked exports as files into one directory.
type Writer struct {
	// Dir is the export directory; it is created on first use.
	Dir string
	// SpreadParent lets the writer mark Dir's parent with
	// placement.SpreadSubdirs before it creates Dir, so that Dir lands
	// where creating files is cheap; set it only when the parent belongs
	// to the server (its data directory).
	SpreadParent bool
}

// FileName is the name of the export of session sid made at exportedAt:
// <sessionId>-<timestamp with ':' and '.' replaced by '-'>.json.
func FileName(sid, exportedAt string) string {
	ts := strings.NewReplacer(":", "-", ".", "-").Replace(exportedAt)
	return sid + "-" + ts + ".json"
}

// Write stores e and returns the absolute path of the file. The file is
// written through a temporary file and a rename; it is private to the user
// (0600 less the umask), like the directory (0700).
func (w Writer) Write(e Linked) (string, error) {
	dir, err := filepath.Abs(w.Dir)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, FileName(e.Session.ID, e.ExportedAt))
	var werr error
	if err := jsonx.WithPretty(e, func(data []byte) { werr = w.writeFile(dir, path, data) }); err != nil {
		return "", err
	}
	if werr != nil {
		return "", werr
	}
	return path, nil
}

// writeFile writes data to path, in dir, through a temporary file and a
// rename (with plain system calls: an export is written for every closed
// session).
func (w Writer) writeFile(dir, path string, data []byte) error {
	err := sysfile.WriteAtomic(dir, path, data)
	if errors.Is(err, os.ErrNotExist) {
		// First export: create the directory.
		if err := w.makeDir(dir); err != nil {
			return fmt.Errorf("create export dir: %w", err)
		}
		err = sysfile.WriteAtomic(dir, path, data)
	}
	return err
}

// RemoveStrayTemps deletes the temporary files that writers which died left
// in the export directory and returns how many it removed.
func (w Writer) RemoveStrayTemps() int { return tmpfile.RemoveStray(w.Dir) }

// makeDir creates the export directory dir (0700), after marking its parent
// when SpreadParent is set.
func (w Writer) makeDir(dir string) error {
	if w.SpreadParent {
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return err
		}
		placement.SpreadSubdirs(filepath.Dir(dir))
	}
	return os.MkdirAll(dir, 0o700)
}
