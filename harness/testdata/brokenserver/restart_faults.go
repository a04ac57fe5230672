package brokenserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// The faults for the restart scenarios (features/restart.feature). Like the
// durability faults they need a target the harness restarts, and the last
// two the server's data directory (SetDataDir); they are caught by
// TestRestartFaultsAreCaught, not in All.
const (
	// CountsSwappedAfterRestart swaps thoughtCount and branchCount in the
	// session objects of session list, search and get once the server has
	// restarted, as a store whose columns are read back in the wrong order
	// shows. The rule it breaks: everything written survives a restart,
	// read back unchanged through every read path (D8, D15).
	CountsSwappedAfterRestart Fault = "counts-swapped-after-restart"
	// CritiqueLostAfterRestart drops the critique of every thought read
	// through read_thoughts, session get and the JSON export once the
	// server has restarted, as a store that keeps critiques in memory
	// only shows. The rule it breaks: a critique is persisted (D10) and
	// reads back after a restart.
	CritiqueLostAfterRestart Fault = "critique-lost-after-restart"
	// RewriteInPlace makes the files a thought rewrites keep their old
	// inodes: before a thought is forwarded the proxy hard-links the
	// session's manifest and its last thought file (whose next links the
	// thought changes) to side names; once the server has written the new
	// ones the proxy writes their content into the old inodes and renames
	// those back over them, as a server that rewrites files in place (open,
	// truncate, write) leaves them. The rule it breaks: a file is never
	// rewritten in place, so a reader or a crash never sees it half
	// written (D15).
	RewriteInPlace Fault = "rewrite-in-place"
	// ManifestFirst commits the manifest before the thought file it lists:
	// once the server has written both, the proxy removes the new
	// thought's file, renames a copy of the manifest over it and then
	// renames the thought file back into place, so the observed order is
	// the manifest, then the thought, as a server that writes its manifest
	// first leaves it. The rule it breaks: a thought file is committed
	// before the manifest that lists it, so a crash between the two never
	// leaves a manifest listing a missing file (D15).
	ManifestFirst Fault = "manifest-first"
	// ContextLostAfterRestart answers every call in a 2026-era context
	// minted before the server's last restart with the error of an unknown
	// context, as a server that keeps contexts in memory only shows. The
	// rule it breaks: contexts live in the store, so a context goes on
	// after a restart at its stage and in its reasoning session (D26).
	ContextLostAfterRestart Fault = "context-lost-after-restart"
)

// RestartFaults lists the faults the restart scenarios must catch.
var RestartFaults = []Fault{CountsSwappedAfterRestart, CritiqueLostAfterRestart, RewriteInPlace, ManifestFirst, ContextLostAfterRestart}

// restartWatch is the proxy's bookkeeping for the restart faults.
type restartWatch struct {
	mu sync.Mutex
	// canary is an MCP session of the proxy's own (2025-11-25): a server
	// forgets its MCP sessions when it restarts, so a canary it no longer
	// knows means it restarted.
	canary   string
	restarts int
	// current is the reasoning session each client session's thoughts went
	// to last; kept are the side names that keep its files' old inodes
	// (RewriteInPlace), by path, by client session.
	current map[string]string
	kept    map[string]map[string]string
	// written is, for each reasoning session a thought went to, how many
	// restarts the proxy had seen then: a session written before the last
	// restart is one the server read back from its store.
	written map[string]int
	// minted is, for each 2026-era context an answer named, how many
	// restarts the proxy had seen then.
	minted map[string]int
}

var restartStates sync.Map // *Proxy → *restartWatch

// watch returns the proxy's restart bookkeeping.
func (p *Proxy) watch() *restartWatch {
	rw, _ := restartStates.LoadOrStore(p, &restartWatch{current: map[string]string{}, kept: map[string]map[string]string{}, written: map[string]int{}, minted: map[string]int{}})
	return rw.(*restartWatch)
}

func isRestartFault(f Fault) bool { return slices.Contains(RestartFaults, f) }

// restartResult applies a fault of this file to one tool result of
// thoughtbox_gateway; it reports whether the fault is one of this file's.
func (p *Proxy) restartResult(c call, res, obj map[string]any, jsonText, isError bool, set func()) bool {
	if !isRestartFault(p.fault) {
		return false
	}
	if p.fault == ContextLostAfterRestart {
		p.loseContext(c, res, firstBlock(res))
		return true
	}
	if !jsonText || isError {
		return true
	}
	switch p.fault {
	case CountsSwappedAfterRestart:
		if !isListing(c) {
			p.noteWritten(c, obj)
			return true
		}
		p.restarted()
		for _, s := range sessionObjects(obj) {
			if id, _ := s["id"].(string); p.readBack(id) {
				s["thoughtCount"], s["branchCount"] = s["branchCount"], s["thoughtCount"]
			}
		}
		set()
	case CritiqueLostAfterRestart:
		p.noteWritten(c, obj)
		p.restarted()
		if dropCritiques(c, obj, p.readBack) {
			set()
		}
	case RewriteInPlace, ManifestFirst:
		p.afterThought(c, obj)
	}
	return true
}

// restartBefore runs before a tools/call is forwarded to the server.
func (p *Proxy) restartBefore(c call) {
	switch p.fault {
	case CountsSwappedAfterRestart, CritiqueLostAfterRestart, ContextLostAfterRestart:
		p.restarted() // the first call opens the canary
	case RewriteInPlace:
		if c.Operation == "thought" {
			p.keepInodes(c)
		}
	}
}

// noteWritten notes the reasoning session of a thought answer as written
// since the last restart.
func (p *Proxy) noteWritten(c call, obj map[string]any) {
	sid, _ := obj["sessionId"].(string)
	if c.Operation != "thought" || sid == "" {
		return
	}
	rw := p.watch()
	rw.mu.Lock()
	rw.written[sid] = rw.restarts
	rw.mu.Unlock()
}

// readBack reports whether the server restarted (as last seen by
// restarted) since session sid was last written through the proxy: its
// answers about sid come from its store.
func (p *Proxy) readBack(sid string) bool {
	rw := p.watch()
	rw.mu.Lock()
	defer rw.mu.Unlock()
	gen, ok := rw.written[sid]
	return ok && rw.restarts > gen
}

// isListing reports whether c reads session objects: session list, search
// or get.
func isListing(c call) bool {
	op, _ := c.Args["operation"].(string)
	return c.Operation == "session" && (op == "list" || op == "search" || op == "get")
}

// sessionObjects returns the session objects of a listing answer.
func sessionObjects(obj map[string]any) []map[string]any {
	out := list(obj["sessions"])
	if s, ok := obj["session"].(map[string]any); ok {
		out = append(out, s)
	}
	return out
}

// dropCritiques removes the critiques from a read answer about a session
// the server read back from its store; it reports whether it changed
// anything.
func dropCritiques(c call, obj map[string]any, readBack func(string) bool) bool {
	op, _ := c.Args["operation"].(string)
	sid, _ := obj["sessionId"].(string)
	if s, ok := obj["session"].(map[string]any); ok && sid == "" {
		sid, _ = s["id"].(string)
	}
	changed := false
	strip := func(m map[string]any) {
		if _, ok := m["critique"]; ok {
			delete(m, "critique")
			changed = true
		}
	}
	switch {
	case c.Operation == "read_thoughts" || (c.Operation == "session" && op == "get"):
		if !readBack(sid) {
			return false
		}
		for _, t := range list(obj["thoughts"]) {
			strip(t)
		}
	case c.Operation == "session" && op == "export":
		content, _ := obj["content"].(string)
		var doc map[string]any
		if json.Unmarshal([]byte(content), &doc) != nil {
			return false
		}
		session, _ := doc["session"].(map[string]any)
		if id, _ := session["id"].(string); !readBack(id) {
			return false
		}
		for _, n := range list(doc["nodes"]) {
			if d, ok := n["data"].(map[string]any); ok {
				strip(d)
			}
		}
		if changed {
			b, _ := json.MarshalIndent(doc, "", "  ")
			obj["content"] = string(b)
		}
	}
	return changed
}

// restarted reports whether the server has restarted since the proxy's
// first call: whether it has forgotten the canary MCP session (a new one
// is opened then, for the next restart).
func (p *Proxy) restarted() bool {
	rw := p.watch()
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.canary == "" {
		rw.canary = p.openCanary()
		return false
	}
	if status := p.post(rw.canary, map[string]any{"jsonrpc": "2.0", "id": "canary", "method": "ping"}); status == http.StatusNotFound {
		rw.restarts++
		rw.canary = p.openCanary()
	}
	return rw.restarts > 0
}

// openCanary opens an MCP session of the proxy's own and returns its id.
func (p *Proxy) openCanary() string {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "canary", "method": "initialize",
		"params": map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "broken-canary", "version": "1"}}})
	resp, err := p.send("", body)
	if err != nil {
		return ""
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if id != "" {
		p.post(id, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	}
	return id
}

// post sends a message in MCP session id and returns the HTTP status (0
// when the server did not answer).
func (p *Proxy) post(id string, msg map[string]any) int {
	body, _ := json.Marshal(msg)
	resp, err := p.send(id, body)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func (p *Proxy) send(id string, body []byte) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, p.upstream.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	return http.DefaultClient.Do(req)
}

// keepInodes hard-links the manifest and the last main-chain thought file
// (whose next links the new thought changes) of the client session's
// current reasoning session to side names before a thought is forwarded,
// keeping their inodes (RewriteInPlace).
func (p *Proxy) keepInodes(c call) {
	rw := p.watch()
	rw.mu.Lock()
	sid := rw.current[c.Session]
	rw.mu.Unlock()
	dir := p.sessionDir(sid)
	if dir == "" {
		return
	}
	names := []string{"manifest.json"}
	if thoughts, _ := filepath.Glob(filepath.Join(dir, "[0-9][0-9][0-9].json")); len(thoughts) > 0 {
		slices.Sort(thoughts)
		names = append(names, filepath.Base(thoughts[len(thoughts)-1]))
	}
	kept := map[string]string{}
	for _, name := range names {
		side := filepath.Join(dir, fmt.Sprintf(".kept-%d-%s", time.Now().UnixNano(), name))
		if os.Link(filepath.Join(dir, name), side) == nil {
			kept[filepath.Join(dir, name)] = side
		}
	}
	rw.mu.Lock()
	rw.kept[c.Session] = kept
	rw.mu.Unlock()
}

// rewriteInPlace gives every kept file whose content changed its old inode
// back: the new content is written into the old inode, which is renamed
// over the path.
func rewriteInPlace(kept map[string]string) {
	for path, side := range kept {
		data, err := os.ReadFile(path)
		old, oerr := os.ReadFile(side)
		if err != nil || oerr != nil || bytes.Equal(data, old) {
			continue
		}
		if os.WriteFile(side, data, 0o600) == nil {
			_ = os.Rename(side, path)
		}
	}
}

// sessionDir is the directory of reasoning session sid ("" when unknown).
func (p *Proxy) sessionDir(sid string) string {
	if sid == "" || p.dataDir == "" {
		return ""
	}
	return findDir(p.dataDir, sid)
}

// afterThought notes the reasoning session of a thought answer and, once
// the server has written the thought's file and the manifest listing it,
// applies RewriteInPlace or ManifestFirst to them.
func (p *Proxy) afterThought(c call, obj map[string]any) {
	if c.Operation != "thought" {
		return
	}
	sid, _ := obj["sessionId"].(string)
	n, ok := obj["thoughtNumber"].(float64)
	rw := p.watch()
	rw.mu.Lock()
	kept := rw.kept[c.Session]
	delete(rw.kept, c.Session)
	if sid != "" {
		rw.current[c.Session] = sid
	}
	rw.mu.Unlock()
	for _, side := range kept {
		defer os.Remove(side)
	}
	dir := p.sessionDir(sid)
	if dir == "" || !ok || c.Args["branchId"] != nil {
		return
	}
	name := fmt.Sprintf("%03d.json", int(n))
	manifest := filepath.Join(dir, "manifest.json")
	if !waitListed(manifest, filepath.Join(dir, name)) {
		return
	}
	switch p.fault {
	case RewriteInPlace:
		rewriteInPlace(kept)
	case ManifestFirst:
		thought := filepath.Join(dir, name)
		data, err := os.ReadFile(thought)
		if err != nil {
			return
		}
		listing, err := os.ReadFile(manifest)
		if err != nil || os.Remove(thought) != nil {
			return
		}
		_ = renameInto(manifest, listing)
		_ = renameInto(thought, data)
	}
}

// waitListed waits until the manifest lists the thought file at path and
// the file exists (a server may write them after it answers).
func waitListed(manifest, path string) bool {
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil && listed(manifest, filepath.Base(path)) {
			return true
		}
	}
	return false
}

// renameInto writes data to a temporary file beside path and renames it
// over path.
func renameInto(path string, data []byte) error {
	tmp := path + ".broken-tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// firstBlock returns the first content block of a tool result.
func firstBlock(res map[string]any) map[string]any {
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return nil
	}
	b, _ := content[0].(map[string]any)
	return b
}

// loseContext notes the context an answer names, and turns the answer to a
// call in a context minted before the last restart into the error of an
// unknown context.
func (p *Proxy) loseContext(c call, res, block map[string]any) {
	restarted := p.restarted()
	rw := p.watch()
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if sc, ok := res["structuredContent"].(map[string]any); ok {
		if id, _ := sc["contextId"].(string); id != "" {
			if _, known := rw.minted[id]; !known {
				rw.minted[id] = rw.restarts
			}
		}
	}
	id, modern := strings.CutPrefix(c.Session, contextPrefix)
	gen, known := rw.minted[id]
	if !modern || !known || !restarted || gen >= rw.restarts || block == nil {
		return
	}
	b, _ := json.MarshalIndent(map[string]any{"error": "Unknown context: " + id + ". Call start_new or load_context to begin again.",
		"contextId": id}, "", "  ")
	block["text"] = string(b)
	res["isError"] = true
	delete(res, "structuredContent")
}
