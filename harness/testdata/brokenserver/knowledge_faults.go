package brokenserver

import (
	"sync"
	"time"

	"github.com/google/uuid"
)

// The faults of the knowledge suite (features/knowledge.feature).
const (
	// RootsHang holds every list_roots and bind_root call for three
	// seconds before the server sees it, as a server that waits for a
	// roots/list answer from a client that never declared the capability
	// (1.2.2 waits 60 s; D17).
	RootsHang Fault = "list-roots-hangs"
	// DuplicateEntity answers a create_entity of a (name, type) created
	// before with a new entity id, as a server that creates the entity a
	// second time (D12). Its scenarios start a server of their own, so it
	// is caught by a run against a target whose own servers are behind the
	// proxy, not by the URL run of All.
	DuplicateEntity Fault = "duplicate-entity-created-twice"
)

// RootsHang runs against a URL: it is one of All.
// KnowledgeFaults lists the faults the knowledge scenarios that start a
// server of their own must catch.
var KnowledgeFaults = []Fault{DuplicateEntity}

// rootsHangTime is how long RootsHang holds a call.
const rootsHangTime = 3 * time.Second

// holdRoots delays a list_roots or bind_root call under RootsHang.
func (p *Proxy) holdRoots(c call) {
	if p.fault == RootsHang && c.Tool == "thoughtbox_gateway" && (c.Operation == "list_roots" || c.Operation == "bind_root") {
		time.Sleep(rootsHangTime)
	}
}

// entityKey is an entity's (name, type) as one proxy saw it.
type entityKey struct {
	proxy      *Proxy
	name, kind string
}

// entitiesSeen is DuplicateEntity's record of the (name, type) pairs
// created so far.
var entitiesSeen = struct {
	sync.Mutex
	m map[entityKey]bool
}{m: map[entityKey]bool{}}

// duplicateEntity gives a repeated create_entity a new id.
func (p *Proxy) duplicateEntity(c call, obj map[string]any, jsonText, isError bool, set func()) {
	if c.Operation != "knowledge" || c.Args["action"] != "create_entity" || isError || !jsonText || obj["entity_id"] == nil {
		return
	}
	name, _ := c.Args["name"].(string)
	typ, _ := c.Args["type"].(string)
	key := entityKey{p, name, typ}
	entitiesSeen.Lock()
	seen := entitiesSeen.m[key]
	entitiesSeen.m[key] = true
	entitiesSeen.Unlock()
	if seen {
		obj["entity_id"] = uuid.NewString()
		set()
	}
}
