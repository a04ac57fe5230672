package security

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// pathTraversal sends ids that climb out of the data directory towards a
// file name carrying the run's nonce: each must be refused, and no file of
// that name may appear in the temporary directory (where the ids point)
// or anywhere under the data directory's parent.
func pathTraversal(ctx context.Context, e *env) verdict {
	c, err := target.Connect(ctx, e.tg, e.rec, target.ConnOptions{})
	if err != nil {
		return fail("connecting: " + err.Error())
	}
	defer c.Close()
	name := "tbbench-escape-" + e.nonce
	up := strings.Repeat("../", 12) + strings.TrimPrefix(filepath.Join(os.TempDir(), name), "/")
	for _, s := range [][2]string{{"start_new", `{"newWork":{"project":"security"}}`}, {"cipher", ""},
		{"thought", `{"thought":"A thought to branch from","nextThoughtNeeded":true}`}} {
		var args any
		if s[1] != "" {
			args = json.RawMessage(s[1])
		}
		if res, err := c.Gateway(ctx, s[0], args); err != nil || res.IsError {
			return fail(fmt.Sprintf("setting up (%s): %v %s", s[0], err, res.Text()))
		}
	}
	q, _ := json.Marshal(up)
	attempts := []struct{ op, args string }{
		{"session", `{"operation":"export","sessionId":` + string(q) + `,"format":"json"}`},
		{"session", `{"operation":"export","sessionId":` + string(q) + `,"format":"markdown"}`},
		{"session", `{"operation":"get","sessionId":` + string(q) + `}`},
		{"session", `{"operation":"resume","sessionId":` + string(q) + `}`},
		{"load_context", `{"sessionId":` + string(q) + `}`},
		{"thought", `{"thought":"escape","nextThoughtNeeded":true,"branchId":` + string(q) + `,"branchFromThought":1}`},
	}
	var accepted []string
	for _, a := range attempts {
		res, err := c.Gateway(ctx, a.op, json.RawMessage(a.args))
		if err == nil && !res.IsError {
			accepted = append(accepted, a.op+" "+a.args[:min(len(a.args), 40)])
		}
	}
	found, _ := filepath.Glob(filepath.Join(os.TempDir(), "*"+e.nonce+"*"))
	if dir := e.tg.Info().DataDir; dir != "" {
		dir := filepath.Dir(dir)
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && p != dir && strings.Count(strings.TrimPrefix(p, dir), string(filepath.Separator)) > 6 {
				return filepath.SkipDir
			}
			if strings.Contains(d.Name(), e.nonce) {
				found = append(found, p)
			}
			return nil
		})
	}
	switch {
	case len(found) > 0:
		return fail("files written outside the data directory: " + strings.Join(found, ", "))
	case len(accepted) > 0:
		return fail("path-like ids accepted: " + strings.Join(accepted, "; "))
	}
	return pass(fmt.Sprintf("%d path-like ids refused; no file named after them", len(attempts)))
}
