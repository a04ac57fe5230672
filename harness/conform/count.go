package conform

import (
	"io/fs"
	"path"
	"strconv"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v26"
)

// CountScenarios counts the scenarios (outline examples included) in the
// feature files of fsys, for progress reporting.
func CountScenarios(fsys fs.FS) int {
	n := 0
	id := 0
	newID := func() string { id++; return strconv.Itoa(id) }
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".feature" {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil
		}
		doc, err := gherkin.ParseGherkinDocument(strings.NewReader(string(data)), newID)
		if err != nil {
			return nil
		}
		n += len(gherkin.Pickles(*doc, p, newID))
		return nil
	})
	return n
}
