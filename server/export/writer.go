package export

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
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
// written through a temporary file and a rename.
func (w Writer) Write(e Linked) (string, error) {
	dir, err := filepath.Abs(w.Dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create export dir: %w", err)
	}
	data, err := jsonx.Pretty(e)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, FileName(e.Session.ID, e.ExportedAt))
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return "", err
	}
	return path, nil
}
