package gateway

import (
	"sync"

	"github.com/thoughtbox-bench/tbbench/server/ledger"
)

// Conn is the gateway state of one MCP connection: its stage, its init
// navigation state and its ledger handler.
type Conn struct {
	// Ledger is the connection's reasoning ledger.
	Ledger *ledger.Handler

	mu    sync.Mutex
	stage Stage
	nav   navigation
}

// NewConn returns the state of a fresh connection at stage Entry.
func NewConn(l *ledger.Handler) *Conn { return &Conn{Ledger: l, nav: navigation{level: 1}} }

// Stage returns the connection's current stage.
func (c *Conn) Stage() Stage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stage
}

// navigation is what the init operations remember about a connection: the
// connection stage shown by get_state (1: fresh, 2: navigating, 3: context
// loaded), the selected project/task/aspect and the loaded session.
type navigation struct {
	level           int
	project         string
	task            string
	aspect          string
	activeSessionID string
	root            *Root
}

// Root is a client root (MCP roots) bound to a connection as its project
// boundary: start_new then takes the project from it.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// BindRoot makes r the connection's bound root.
func (c *Conn) BindRoot(r Root) { c.setNav(func(n *navigation) { n.root = &r }) }

// BoundRoot returns the connection's bound root, if any.
func (c *Conn) BoundRoot() (Root, bool) {
	nav := c.navState()
	if nav.root == nil {
		return Root{}, false
	}
	return *nav.root, true
}

func (c *Conn) navState() navigation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nav
}

func (c *Conn) setNav(f func(*navigation)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(&c.nav)
}

// State is what a connection remembers between calls, in the form a 2026-era
// context is stored (spec D26): the stage, the navigation of the init
// operations, the bound root and the current reasoning session's id.
type State struct {
	Stage           Stage  `json:"stage"`
	Level           int    `json:"level"`
	Project         string `json:"project,omitempty"`
	Task            string `json:"task,omitempty"`
	Aspect          string `json:"aspect,omitempty"`
	ActiveSessionID string `json:"activeSessionId,omitempty"`
	Root            *Root  `json:"root,omitempty"`
	// CurrentSession is the id of the reasoning session the next thought
	// appends to ("" for none).
	CurrentSession string `json:"currentSession,omitempty"`
}

// State returns the connection's state.
func (c *Conn) State() State {
	c.mu.Lock()
	st := State{Stage: c.stage, Level: c.nav.level, Project: c.nav.project, Task: c.nav.task, Aspect: c.nav.aspect,
		ActiveSessionID: c.nav.activeSessionID}
	if c.nav.root != nil {
		r := *c.nav.root
		st.Root = &r
	}
	c.mu.Unlock()
	if cur := c.Ledger.Current(); cur != nil {
		st.CurrentSession = cur.ID()
	}
	return st
}

// RestoreConn returns a connection in state st, with l as its ledger. The
// caller makes st.CurrentSession l's current session, if it still exists.
func RestoreConn(l *ledger.Handler, st State) *Conn {
	c := NewConn(l)
	c.stage = st.Stage
	c.nav = navigation{level: max(st.Level, 1), project: st.Project, task: st.Task, aspect: st.Aspect, activeSessionID: st.ActiveSessionID}
	if st.Root != nil {
		r := *st.Root
		c.nav.root = &r
	}
	return c
}
