package mcpserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var thoughtFileName = regexp.MustCompile(`^[0-9]{3,}\.json$`)

// staleLinks reads every thought file under the data directory and returns
// every link that does not hold on disk: a prev whose file does not list the
// node in next, a next whose file does not point back with prev, a link to
// a file that does not exist (D8: the files alone must be a consistent
// graph). It also returns how many thought files it read.
func staleLinks(t *testing.T, dataDir string) ([]string, int) {
	t.Helper()
	type node struct {
		ID   string   `json:"id"`
		Prev *string  `json:"prev"`
		Next []string `json:"next"`
	}
	nodes := map[string]node{}
	err := filepath.WalkDir(dataDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !thoughtFileName.MatchString(d.Name()) || !strings.Contains(path, string(filepath.Separator)+"sessions"+string(filepath.Separator)) {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var n node
		if err := json.Unmarshal(data, &n); err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		nodes[n.ID] = n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for id, n := range nodes {
		if n.Prev != nil {
			p, ok := nodes[*n.Prev]
			if !ok || !slices.Contains(p.Next, id) {
				stale = append(stale, id+" has prev "+*n.Prev+" whose file does not list it in next")
			}
		}
		for _, x := range n.Next {
			c, ok := nodes[x]
			if !ok || c.Prev == nil || *c.Prev != id {
				stale = append(stale, id+" lists next "+x+" whose file does not point back")
			}
		}
	}
	return stale, len(nodes)
}
