package steps

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/cucumber/godog"
)

// readPath is one way of reading a session back: a name for reports and
// the read itself, which returns the answer as JSON (or a text).
type readPath struct {
	name string
	read func() (any, error)
}

// readPaths are every read path of the session sid: read_thoughts in each
// mode, get_structure, session list, search, export in every format, get
// and analyze, deep_analysis, observability_gateway's sessions and
// session_info, the thought-query resources, and last load_context and
// session resume (they change the connection's session) on an MCP session
// of their own.
func (w *World) readPaths(sid string, main []int, branches []string, revised int) []readPath {
	gateway := func(op string, args map[string]any) func() (any, error) {
		return func() (any, error) { return w.readAnswer(op, args) }
	}
	session := func(args map[string]any) func() (any, error) {
		return func() (any, error) { return w.readAnswer("session", args) }
	}
	var paths []readPath
	add := func(name string, read func() (any, error)) { paths = append(paths, readPath{name, read}) }
	add("read_thoughts default", gateway("read_thoughts", map[string]any{"sessionId": sid}))
	add("read_thoughts range", gateway("read_thoughts", map[string]any{"sessionId": sid, "range": []int{1, 100}}))
	add("read_thoughts last 3", gateway("read_thoughts", map[string]any{"sessionId": sid, "last": 3}))
	for _, n := range main {
		add(fmt.Sprintf("read_thoughts thought %d", n), gateway("read_thoughts", map[string]any{"sessionId": sid, "thoughtNumber": n}))
	}
	for _, b := range branches {
		add("read_thoughts branch "+b, gateway("read_thoughts", map[string]any{"sessionId": sid, "branchId": b}))
	}
	add("get_structure", gateway("get_structure", map[string]any{"sessionId": sid}))
	add("session list", func() (any, error) {
		return w.listedSession("list", map[string]any{"operation": "list", "limit": 100}, sid)
	})
	add("session search", func() (any, error) {
		return w.listedSession("search", map[string]any{"operation": "search", "query": w.env.Nonce, "limit": 100}, sid)
	})
	for _, format := range []string{"json", "markdown", "cipher"} {
		add("session export "+format, func() (any, error) {
			return w.exportRead(map[string]any{"operation": "export", "sessionId": sid, "format": format})
		})
	}
	add("session get", session(map[string]any{"operation": "get", "sessionId": sid}))
	add("session analyze", session(map[string]any{"operation": "analyze", "sessionId": sid}))
	add("deep_analysis full", gateway("deep_analysis", map[string]any{"sessionId": sid, "analysisType": "full"}))
	add("observability sessions", func() (any, error) { return w.observedSession("sessions", `{"limit": 100}`, sid) })
	add("observability session_info", func() (any, error) {
		return w.observedSession("session_info", fmt.Sprintf(`{"sessionId": %q}`, sid), sid)
	})
	if len(main) > 0 {
		add("resource thoughts range", w.resourceRead(fmt.Sprintf("thoughtbox://thoughts/%s/range/1-%d", sid, main[len(main)-1])))
	}
	add("resource references 1", w.resourceRead(fmt.Sprintf("thoughtbox://references/%s/1", sid)))
	if revised > 0 {
		add(fmt.Sprintf("resource revisions %d", revised), w.resourceRead(fmt.Sprintf("thoughtbox://revisions/%s/%d", sid, revised)))
	}
	add("load_context", func() (any, error) {
		if err := w.openNamed(loaderConn); err != nil {
			return nil, err
		}
		defer func() { w.current = readerConn }()
		return w.readAnswer("load_context", map[string]any{"sessionId": sid})
	})
	add("session resume", func() (any, error) {
		w.current = loaderConn
		defer func() { w.current = readerConn }()
		return w.readAnswer("session", map[string]any{"operation": "resume", "sessionId": sid})
	})
	return paths
}

// The MCP sessions the read steps open: one at stage cipher_loaded for the
// reads, one at stage entry for load_context and then session resume.
const (
	readerConn = "restart-reader"
	loaderConn = "restart-loader"
)

// readAnswer makes one call and returns its answer: its JSON, else its text.
// An error answer is an answer too (it is kept and compared).
func (w *World) readAnswer(op string, args map[string]any) (any, error) {
	res, err := w.call(op, args)
	if err != nil {
		return nil, err
	}
	var v any
	if json.Unmarshal([]byte(res.Text()), &v) != nil {
		v = res.Text()
	}
	if res.IsError {
		return map[string]any{"isError": true, "answer": v}, nil
	}
	return v, nil
}

// listedSession returns the entry of session sid in a list or search
// answer, not the whole answer: other scenarios' sessions come and go.
func (w *World) listedSession(what string, args map[string]any, sid string) (any, error) {
	v, err := w.readAnswer("session", args)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok || m["isError"] == true {
		return v, nil
	}
	items, _ := m["sessions"].([]any)
	for _, it := range items {
		if s, _ := it.(map[string]any); s != nil && s["id"] == sid {
			return s, nil
		}
	}
	return "session " + sid + " is not in the " + what + " answer", nil
}

// observedSession calls observability_gateway and returns its answer, or,
// when the answer lists sessions, the entry of session sid.
func (w *World) observedSession(op, args, sid string) (any, error) {
	if err := w.callObservability(op, &godog.DocString{Content: args}); err != nil {
		return nil, err
	}
	var v any
	if json.Unmarshal([]byte(w.last.Text()), &v) != nil {
		v = w.last.Text()
	}
	m, _ := v.(map[string]any)
	if w.last.IsError || m == nil || m["sessions"] == nil {
		return map[string]any{"isError": w.last.IsError, "answer": v}, nil
	}
	for _, s := range jsonObjects(m["sessions"]) {
		if s["id"] == sid {
			return s, nil
		}
	}
	return "session " + sid + " is not in the observability sessions answer", nil
}

// exportRead exports the session; a JSON export's content is parsed.
func (w *World) exportRead(args map[string]any) (any, error) {
	v, err := w.readAnswer("session", args)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil
	}
	if s, ok := m["content"].(string); ok {
		var doc any
		if json.Unmarshal([]byte(s), &doc) == nil {
			m["content"] = doc
		}
	}
	return m, nil
}

// resourceRead reads a resource's text (its JSON when it is JSON).
func (w *World) resourceRead(uri string) func() (any, error) {
	return func() (any, error) {
		raw, err := w.request("resources/read", map[string]any{"uri": uri})
		if err != nil {
			return map[string]any{"error": err.Error()}, nil
		}
		var r struct {
			Contents []struct {
				Text string `json:"text"`
			} `json:"contents"`
		}
		if json.Unmarshal(raw, &r) != nil || len(r.Contents) == 0 {
			return string(raw), nil
		}
		var v any
		if json.Unmarshal([]byte(r.Contents[0].Text), &v) != nil {
			return r.Contents[0].Text, nil
		}
		return v, nil
	}
}

// masked returns v with the volatile fields' values and the times inside
// texts replaced by "*".
func masked(v any) any { return maskKeys(v, volatileFields, true) }

// maskKeys returns v with the values of keys replaced by "*" at any depth;
// with texts, the times inside texts too. A time that is the whole value
// is data (createdAt, a thought's timestamp) and is kept; times inside a
// text (the markdown export's "exported at") are masked.
func maskKeys(v any, keys map[string]bool, texts bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if keys[k] {
				out[k] = "*"
				continue
			}
			out[k] = maskKeys(e, keys, texts)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = maskKeys(e, keys, texts)
		}
		return out
	case string:
		if !texts || isoTime.FindString(x) == x {
			return x
		}
		return isoTime.ReplaceAllString(x, "*")
	}
	return v
}

// sessionShape reads the session's main-chain numbers, its branches and a
// revised thought (0 when none) from get_structure and read_thoughts.
func (w *World) sessionShape(sid string) (main []int, branches []string, revised int, err error) {
	if _, err = w.mustSucceed("read_thoughts", map[string]any{"sessionId": sid, "range": []int{1, 100}}); err != nil {
		return
	}
	r, err := w.read()
	if err != nil {
		return
	}
	for _, t := range r.Thoughts {
		main = append(main, t.ThoughtNumber)
		if t.RevisesThought != nil && revised == 0 {
			revised = *t.RevisesThought
		}
	}
	if _, err = w.mustSucceed("get_structure", map[string]any{"sessionId": sid}); err != nil {
		return
	}
	s, err := w.structure()
	if err != nil {
		return
	}
	for b := range s.Branches {
		branches = append(branches, b)
	}
	sort.Strings(branches)
	return
}
