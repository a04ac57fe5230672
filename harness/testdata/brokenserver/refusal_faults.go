package brokenserver

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// Faults of refused inputs that change something anyway: the robustness
// catalogue (tbbench robust) must see, after each input it refuses, the
// reasoning sessions, each connection's current session and stage, and the
// data directory exactly as before. Its tests (harness/robust) run the
// catalogue through each.
const (
	// RefusedRevisionLeavesSession refuses a first thought that revises a
	// thought that does not exist as the server does, but leaves an empty
	// reasoning session behind, made the connection's current one (as
	// 1.2.2 does, creating the session before it checks the revision):
	// from then on the session is listed by list_sessions (and session
	// list) on every connection, and the connection's read_thoughts and
	// get_structure read it (no thoughts) instead of answering that there
	// is no active session. A refused input must leave the sessions and
	// the current session as they were.
	RefusedRevisionLeavesSession Fault = "refused-revision-leaves-empty-session"
	// RefusalAdvancesStage answers a call refused for its stage (a
	// stage-gated operation other than a read, before init_complete) as
	// the server does, but
	// advances the connection's stage anyway, by a start_new of its own on
	// the same MCP session; in the 2026 era the refusal hands the client
	// the context start_new made. A refused input must leave the stage
	// where it was (D2).
	RefusalAdvancesStage Fault = "refusal-advances-stage"
	// RefusedThoughtLeavesFile answers a refused thought as the server
	// does, but leaves a file of its arguments behind in the data
	// directory (tmp/refused-<n>.json, as a server that writes a thought
	// before it checks it and never cleans up would): a refused input must
	// leave the data directory as it was. It needs the server's data
	// directory (SetDataDir).
	RefusedThoughtLeavesFile Fault = "refused-thought-leaves-file"
)

// RefusalFaults are the faults the robustness catalogue must catch; the
// conformance suite's scenarios are not asked to.
var RefusalFaults = []Fault{RefusedRevisionLeavesSession, RefusalAdvancesStage, RefusedThoughtLeavesFile}

// strayFiles numbers the files RefusedThoughtLeavesFile leaves behind.
var strayFiles atomic.Int64

// emptySessions are the empty sessions RefusedRevisionLeavesSession left
// behind, per proxy (Proxy has no field for them).
var emptySessions sync.Map // *Proxy → *leftBehind

// leftBehind is what refused first thoughts left behind on one proxy.
type leftBehind struct {
	mu sync.Mutex
	// current is the empty session each MCP session (or 2026-era context)
	// holds as its current one.
	current map[string]string
	// ids are every session left behind, oldest first.
	ids []string
}

func (p *Proxy) leftBehind() *leftBehind {
	v, _ := emptySessions.LoadOrStore(p, &leftBehind{current: map[string]string{}})
	return v.(*leftBehind)
}

// refusalResult applies a fault of this file to one tool result of
// thoughtbox_gateway; it reports whether the fault is one of this file's.
func (p *Proxy) refusalResult(c call, res, obj map[string]any, jsonText, isError bool, set func()) bool {
	switch p.fault {
	case RefusedRevisionLeavesSession:
		p.leaveEmptySession(c, res, obj, jsonText, isError, set)
	case RefusalAdvancesStage:
		// Reads are left alone: a read refused for its stage is how a
		// client sees the stage.
		if isError && jsonText && obj["currentStage"] == "entry" && c.Operation != "read_thoughts" && c.Operation != "get_structure" && c.Operation != "get_state" {
			side := p.sideCall(c.Session, map[string]any{"operation": "start_new", "args": map[string]any{"newWork": map[string]any{"project": "broken"}}})
			if sc, ok := side["structuredContent"].(map[string]any); ok && strings.HasPrefix(c.Session, contextPrefix) {
				res["structuredContent"] = sc
			}
		}
	case RefusedThoughtLeavesFile:
		if c.Operation == "thought" && isError && p.dataDir != "" {
			dir := filepath.Join(p.dataDir, "tmp")
			args, _ := json.Marshal(c.Args)
			if os.MkdirAll(dir, 0o755) == nil {
				_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("refused-%d.json", strayFiles.Add(1))), args, 0o644)
			}
		}
	default:
		return false
	}
	return true
}

// leaveEmptySession applies RefusedRevisionLeavesSession.
func (p *Proxy) leaveEmptySession(c call, res, obj map[string]any, jsonText, isError bool, set func()) {
	lb := p.leftBehind()
	lb.mu.Lock()
	defer lb.mu.Unlock()
	msg, _ := obj["error"].(string)
	sessionArg := c.Args["sessionId"] != nil
	switch {
	case c.Operation == "thought" && isError && c.Args["revisesThought"] != nil && strings.Contains(msg, "no active reasoning session"):
		if lb.current[c.Session] == "" {
			id := newSessionID()
			lb.current[c.Session] = id
			lb.ids = append(lb.ids, id)
		}
	case (c.Operation == "read_thoughts" || c.Operation == "get_structure") && isError && !sessionArg &&
		strings.Contains(msg, "No active reasoning session") && lb.current[c.Session] != "":
		id := lb.current[c.Session]
		clear(obj)
		obj["sessionId"] = id
		if c.Operation == "read_thoughts" {
			obj["query"], obj["count"], obj["thoughts"] = "the last 5 thoughts", 0, []any{}
		} else {
			obj["totalThoughts"], obj["branches"], obj["branchCount"], obj["revisions"], obj["revisionCount"] = 0, map[string]any{}, 0, []any{}, 0
			obj["mainChain"] = map[string]any{"length": 0, "head": nil, "tail": nil}
		}
		res["isError"] = false
		set()
	case c.Operation == "list_sessions" && !isError && len(lb.ids) > 0:
		content, _ := res["content"].([]any)
		first, _ := content[0].(map[string]any)
		text, _ := first["text"].(string)
		text = strings.TrimSuffix(text, "No sessions match these filters.")
		for _, id := range lb.ids {
			text += fmt.Sprintf("\n## Reasoning session %s\n\n- **ID**: %s\n- **Thoughts**: 0\n", id[:8], id)
		}
		first["text"] = text
	case c.Operation == "session" && c.Args["operation"] == "list" && !isError && jsonText && len(lb.ids) > 0:
		sessions, _ := obj["sessions"].([]any)
		for _, id := range lb.ids {
			sessions = append(sessions, map[string]any{"id": id, "title": "Reasoning session " + id[:8], "thoughtCount": 0, "tags": []any{}})
		}
		obj["sessions"] = sessions
		set()
	}
}

// newSessionID returns a random version 4 UUID, as the server's session ids
// are.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
