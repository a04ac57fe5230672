package brokenserver

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// More durability faults (features/durability.feature), each aimed at one
// sentence of suite C that the two in durability_faults.go leave untested.
const (
	// DamageAdvancesStage answers a load_context refused because the
	// session is damaged as the server does, but advances the stage of a
	// connection that has recorded no thought anyway (as a start_new
	// would): a refused load must leave the stage where it was (D2, D15).
	// Only such connections, so that the check of the stage is what
	// catches it, not the check of the current session.
	DamageAdvancesStage Fault = "damage-advances-stage"
	// DamagedBecomesCurrent answers a load_context or session resume
	// refused because the session is damaged as the server does, but then
	// reports the damaged session as the one the connection's next thoughts
	// go to: a refused load must leave the current session as it was (D15).
	DamagedBecomesCurrent Fault = "damaged-becomes-current"
	// TornWrites writes large thought files in place, not through a
	// temporary file and a rename: right after a large thought is
	// acknowledged its file, already listed in the manifest, holds only the
	// first half of its bytes for a while, so a kill in that while leaves a
	// listed file that does not parse. It needs the server's data directory
	// (SetDataDir) and a server the harness can kill.
	TornWrites Fault = "torn-writes"
)

// KillFaults are the durability faults that only a scenario killing the
// server catches: their test runs them against a server in a child process.
var KillFaults = []Fault{TornWrites}

// SetDataDir tells the proxy where the server keeps its files (TornWrites
// changes them).
func (p *Proxy) SetDataDir(dir string) { p.dataDir = dir }

// largeThought is the size from which TornWrites tears a thought's file.
const largeThought = 64 << 10

// tornWindow is how long a torn file stays torn.
const tornWindow = 30 * time.Second

// damageRefused reports whether the answer to c refuses to load a session
// because its files are damaged, and which session.
func damageRefused(c call, text string, isError bool) (string, bool) {
	resume := c.Operation == "session" && c.Args["operation"] == "resume"
	if !isError || (c.Operation != "load_context" && !resume) || !strings.Contains(text, "damaged") {
		return "", false
	}
	sid, _ := c.Args["sessionId"].(string)
	return sid, sid != ""
}

// afterDamage applies DamageAdvancesStage and DamagedBecomesCurrent.
func (p *Proxy) afterDamage(c call, obj map[string]any, text string, jsonText, isError bool, set func()) {
	if sid, refused := damageRefused(c, text, isError); refused {
		switch {
		case p.fault == DamageAdvancesStage && c.Operation == "load_context" && !p.thinking(c.Session):
			p.sideCall(c.Session, map[string]any{"operation": "start_new", "args": map[string]any{"newWork": map[string]any{"project": "broken"}}})
		case p.fault == DamagedBecomesCurrent:
			p.dur.mu.Lock()
			if p.dur.current == nil {
				p.dur.current = map[string]string{}
			}
			p.dur.current[c.Session] = sid
			p.dur.mu.Unlock()
		}
		return
	}
	if c.Operation != "thought" || isError || !jsonText || obj["sessionId"] == nil {
		return
	}
	p.dur.mu.Lock()
	if p.dur.thoughts == nil {
		p.dur.thoughts = map[string]bool{}
	}
	p.dur.thoughts[c.Session] = true
	p.dur.mu.Unlock()
	if p.fault != DamagedBecomesCurrent {
		return
	}
	p.dur.mu.Lock()
	sid := p.dur.current[c.Session]
	p.dur.mu.Unlock()
	if sid != "" {
		obj["sessionId"] = sid
		set()
	}
}

// thinking reports whether the MCP session has recorded a thought.
func (p *Proxy) thinking(session string) bool {
	p.dur.mu.Lock()
	defer p.dur.mu.Unlock()
	return p.dur.thoughts[session]
}

// tearLarge tears the file of a large main-chain thought just acknowledged.
func (p *Proxy) tearLarge(c call, obj map[string]any, jsonText, isError bool) {
	text, _ := c.Args["thought"].(string)
	if c.Operation != "thought" || isError || !jsonText || len(text) < largeThought || c.Args["branchId"] != nil || p.dataDir == "" {
		return
	}
	sid, _ := obj["sessionId"].(string)
	n, ok := obj["thoughtNumber"].(float64)
	if sid == "" || !ok {
		return
	}
	go p.tear(sid, fmt.Sprintf("%03d.json", int(n)))
}

// tear waits until the session's manifest lists the file, then writes it
// again in place, cut in half, and whole again after tornWindow.
func (p *Proxy) tear(sid, name string) {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		dir := findDir(p.dataDir, sid)
		if dir == "" || !listed(filepath.Join(dir, "manifest.json"), name) {
			continue
		}
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil || !json.Valid(data) {
			continue
		}
		if os.WriteFile(path, data[:len(data)/2], 0o644) != nil {
			return
		}
		time.AfterFunc(tornWindow, func() { _ = os.WriteFile(path, data, 0o644) })
		return
	}
}

// listed reports whether the manifest at path lists the thought file name.
func listed(path, name string) bool {
	var m struct {
		ThoughtFiles []string `json:"thoughtFiles"`
	}
	data, err := os.ReadFile(path)
	return err == nil && json.Unmarshal(data, &m) == nil && slices.Contains(m.ThoughtFiles, name)
}

// findDir finds the directory named name under root ("" when there is none).
func findDir(root, name string) string {
	var found string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == name {
			found = p
			return fs.SkipAll
		}
		return nil
	})
	return found
}
