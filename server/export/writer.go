package export

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/tmpfile"
)

// Writer writes linked exports as files into one directory.
type Writer struct {
	// Dir is the export directory; it is created on first use.
	Dir string
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
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create export dir: %w", err)
	}
	data, err := jsonx.Pretty(e)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, FileName(e.Session.ID, e.ExportedAt))
	f, err := os.CreateTemp(dir, tmpfile.Pattern(filepath.Base(path)))
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		_ = os.Remove(tmp)
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return "", err
	}
	return path, nil
}

// RemoveStrayTemps deletes the temporary files that writers which died left
// in the export directory and returns how many it removed.
func (w Writer) RemoveStrayTemps() int { return tmpfile.RemoveStray(w.Dir) }
