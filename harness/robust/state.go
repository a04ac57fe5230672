package robust

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// volatileKeys are left out of the state read back through MCP: they may
// change on a read without anything being written.
var volatileKeys = map[string]bool{"lastAccessedAt": true}

// stateReads are the operations whose answers make up the state of every
// connection as MCP shows it, read after every input:
//
//   - get_state: the navigation (project, task, aspect, the session a
//     load_context chose) and its level;
//   - read_thoughts and get_structure of the connection's current
//     reasoning session: which session the connection's next thought goes
//     to (refused when it has none, as on the fresh and entry connections;
//     a refused input that leaves one behind changes that answer), and its
//     thoughts;
//   - the stage: read_thoughts and get_structure are gated at
//     cipher_loaded, so on a connection below it their refusal names the
//     stage it is at (currentStage) and on one at it they are answered: a
//     stage that moves changes their answer.
//
// list_sessions is not among them (it moves a connection's navigation on
// from its first level): the main connection, past that level, also lists
// every session (a session left behind by a refused input, even an empty
// one, is listed) and reads its branch. In the 2026 era every connection's
// reads run in the context it carries, so they read the context's state;
// the context's id is part of the state too.
var (
	stateReads = []struct{ op, args string }{{"get_state", ""}, {"read_thoughts", `{"range":[1,100]}`}, {"get_structure", ""}}
	mainReads  = []struct{ op, args string }{{"list_sessions", `{"filters":{"limit":1000}}`}, {"read_thoughts", `{"branchId":"alt"}`}}
)

// mcpState reads the state of every connection through MCP and returns it
// as one comparable string per read.
func mcpState(ctx context.Context, conns [numConns]*target.Conn) (map[string]string, error) {
	out := map[string]string{}
	for i, c := range conns {
		reads := stateReads
		if Conn(i) == ConnMain {
			reads = append(append(reads[:0:0], reads...), mainReads...)
		}
		for _, r := range reads {
			var args any
			if r.args != "" {
				args = json.RawMessage(r.args)
			}
			res, err := c.Gateway(ctx, r.op, args)
			if err != nil {
				return nil, fmt.Errorf("%s on %s: %w", r.op, connNames[i], err)
			}
			out[connNames[i]+" "+r.op+" "+r.args] = normalise(res.Text())
		}
		if id := c.ContextID(); id != "" {
			out[connNames[i]+" contextId"] = id
		}
	}
	return out, nil
}

// normalise drops volatile keys from a JSON text (anything else is kept
// as it is).
func normalise(text string) string {
	var v any
	if json.Unmarshal([]byte(text), &v) != nil {
		return text
	}
	var strip func(any)
	strip = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				if volatileKeys[k] {
					delete(t, k)
				} else {
					strip(e)
				}
			}
		case []any:
			for _, e := range t {
				strip(e)
			}
		}
	}
	strip(v)
	b, _ := json.Marshal(v)
	return string(b)
}

// volatileFileKeys are left out of a 2026-era context's file
// (contexts/<id>.json) when it is hashed: when the context was last used,
// which every call in it, reads included, rewrites (its idle clock).
var volatileFileKeys = map[string]bool{"used": true}

// withoutVolatile returns a JSON object's text without its top-level
// volatile keys (anything that is not an object is returned as it is).
func withoutVolatile(b []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m == nil {
		return string(b)
	}
	for k := range volatileFileKeys {
		delete(m, k)
	}
	out, _ := json.Marshal(m)
	return string(out)
}

// dirState returns a hash per file under dir (lock files left out: their
// content is nothing and a server may create and remove them at will), or
// nil when dir is "".
func dirState(dir string) (map[string]string, error) {
	if dir == "" {
		return nil, nil
	}
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		defer f.Close()
		h := sha256.New()
		if filepath.Base(filepath.Dir(p)) == "contexts" && strings.HasSuffix(p, ".json") {
			// A 2026-era context's file: hashed without its volatile keys.
			b, err := io.ReadAll(f)
			if err != nil {
				return err
			}
			h.Write([]byte(withoutVolatile(b)))
		} else if _, err := io.Copy(h, f); err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = hex.EncodeToString(h.Sum(nil))
		return nil
	})
	return out, err
}

// diff names what differs between two states ("" when nothing does).
func diff(kind string, before, after map[string]string) string {
	var changed []string
	for k, v := range before {
		if w, ok := after[k]; !ok {
			changed = append(changed, "removed "+k)
		} else if w != v {
			changed = append(changed, "changed "+k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			changed = append(changed, "added "+k)
		}
	}
	if len(changed) == 0 {
		return ""
	}
	sort.Strings(changed)
	if len(changed) > 5 {
		changed = append(changed[:5], fmt.Sprintf("and %d more", len(changed)-5))
	}
	return kind + ": " + strings.Join(changed, ", ")
}
