package brokenserver

import (
	"encoding/json"
	"strings"
	"sync"
)

// The faults for the durability scenarios (features/durability.feature).
// Those scenarios restart, kill or damage the server, which the harness can
// do only to a server it started, never to one at a URL; so these faults are
// not in All (whose test runs the suite against a URL) but are caught by a
// run of the durability scenarios against a restartable target behind the
// proxy.
const (
	// HidesDamage answers a load_context or session resume that the
	// server refused because the session's files are damaged with a
	// success that says nothing of the damage, as a server that loads
	// whatever it can read without an integrity check would.
	HidesDamage Fault = "hides-damage"
	// LinksLostOnRestart drops the next links of every export of a session
	// after its first one (next: []), as a server that keeps next links only
	// in memory shows after a restart (1.2.2's defect, D8).
	LinksLostOnRestart Fault = "export-links-lost-on-restart"
)

// DurabilityFaults lists the faults the durability scenarios must catch
// (the others are in damage_faults.go).
var DurabilityFaults = []Fault{HidesDamage, LinksLostOnRestart, DamageAdvancesStage, DamagedBecomesCurrent, TornWrites}

// durabilityState is the proxy's bookkeeping for LinksLostOnRestart,
// DamageAdvancesStage and DamagedBecomesCurrent.
type durabilityState struct {
	mu      sync.Mutex
	exports map[string]int // exports seen, by reasoning session id
	// current is the damaged session DamagedBecomesCurrent reports as
	// current, by MCP session id.
	current map[string]string
	// thoughts marks the MCP sessions that recorded a thought.
	thoughts map[string]bool
}

// hideDamage turns a refusal of a damaged session into a success.
func (p *Proxy) hideDamage(c call, res, first map[string]any, text string, isError bool) {
	resume := c.Operation == "session" && c.Args["operation"] == "resume"
	if !isError || (c.Operation != "load_context" && !resume) || !strings.Contains(text, "damaged") {
		return
	}
	sid, _ := c.Args["sessionId"].(string)
	res["isError"] = false
	if resume {
		b, _ := json.MarshalIndent(map[string]any{"success": true, "sessionId": sid, "message": "Session resumed."}, "", "  ")
		first["text"] = string(b)
		return
	}
	first["text"] = "Loaded session: \nID: " + sid + "\nThoughts: 0"
}

// forgetLinks empties the next links of the nodes of an export whose session
// was exported before.
func (p *Proxy) forgetLinks(doc map[string]any, nodes []map[string]any) {
	session, _ := doc["session"].(map[string]any)
	sid, _ := session["id"].(string)
	p.dur.mu.Lock()
	if p.dur.exports == nil {
		p.dur.exports = map[string]int{}
	}
	p.dur.exports[sid]++
	seen := p.dur.exports[sid]
	p.dur.mu.Unlock()
	if seen < 2 {
		return
	}
	for _, n := range nodes {
		n["next"] = []any{}
	}
}
