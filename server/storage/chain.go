package storage

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Persister makes a chain's changes durable. Its methods are called with the
// chain's lock held, before the change becomes visible in memory: when they
// fail, the change is dropped and the chain is left as it was.
type Persister interface {
	// Append stores a new node and, when it is not nil, its predecessor
	// whose Next list gained the new node's id. s is the session metadata
	// after the append.
	Append(s *Session, n *Node, prev *Node) error
	// Rewrite stores a changed node (for example one that gained a critique).
	Rewrite(s *Session, n *Node) error
}

// Entry is a thought as the ledger hands it to a chain. A zero ThoughtNumber
// asks the chain to number the thought; a zero TotalThoughts defaults to the
// thought number.
type Entry struct {
	Thought           string
	ThoughtNumber     int
	TotalThoughts     int
	NextThoughtNeeded bool
	IsRevision        *bool
	RevisesThought    *int
	BranchFromThought *int
	BranchID          string
	NeedsMoreThoughts *bool
	IncludeGuide      *bool
	AgentID           string
	AgentName         string
}

// Appended describes a thought the chain accepted.
type Appended struct {
	Node Node
	// AutoNumbered is true when the chain chose the thought number.
	AutoNumbered bool
	// NewBranch is true when the thought opened its branch.
	NewBranch bool
}

// RuleError is a thought the chain refuses because it breaks a ledger rule
// (duplicate number, dangling reference, ...). Its message is meant for the
// client.
type RuleError struct{ Msg string }

func (e *RuleError) Error() string { return e.Msg }

func ruleErr(format string, a ...any) error { return &RuleError{Msg: fmt.Sprintf(format, a...)} }

// BranchInfo summarises one branch of a session.
type BranchInfo struct {
	ID    string
	Fork  int
	First int
	Last  int
	Count int
}

type branch struct {
	id     string
	fork   int
	nodes  map[int]*Node
	sorted []*Node
	dirty  bool
	max    int
}

// Chain is the linked ledger of one reasoning session: its metadata and every
// thought node, indexed by id, by number and by creation order. It is safe for
// concurrent use; appends to one chain are serialised.
type Chain struct {
	// id is the session id; it never changes, so it is read without the lock.
	id          string
	mu          sync.RWMutex
	p           Persister
	now         func() time.Time
	sess        Session
	byID        map[string]*Node
	order       []*Node
	main        map[int]*Node
	mainSorted  []*Node
	mainDirty   bool
	branches    map[string]*branch
	branchOrder []string
	tail        *Node
	maxMain     int
	// reg is the registry the chain is in (nil until one takes it), told
	// of every change of its tags (Registry.tagged) and of its update time
	// (Registry.recent, by moved).
	reg atomic.Pointer[Registry]
}

// NewChain returns an empty chain for session s that reports its changes to p
// (nil for none). now supplies timestamps (nil for time.Now).
func NewChain(s Session, p Persister, now func() time.Time) *Chain {
	if now == nil {
		now = time.Now
	}
	if s.Tags == nil {
		s.Tags = []string{}
	}
	return &Chain{id: s.ID, p: p, now: now, sess: s, byID: map[string]*Node{}, main: map[int]*Node{}, branches: map[string]*branch{}}
}

// ID returns the session id.
func (c *Chain) ID() string { return c.id }

// Append validates e against the ledger rules, links it into the chain,
// persists it and returns the stored node. When the persister is a Syncer,
// Append returns once the change is durable (see Syncer).
func (c *Chain) Append(e Entry) (Appended, error) {
	added, err := c.appendLocked(e)
	if err != nil {
		return Appended{}, err
	}
	if err := c.waitDurable(); err != nil {
		return Appended{}, err
	}
	return added, nil
}

func (c *Chain) appendLocked(e Entry) (Appended, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	node, prev, b, auto, err := c.plan(e)
	if err != nil {
		return Appended{}, err
	}
	var prevCopy *Node
	if prev != nil {
		pc := prev.Clone()
		if !slices.Contains(pc.Next, node.ID) {
			pc.Next = append(pc.Next, node.ID)
		}
		prevCopy = &pc
	}
	sess := c.sess
	sess.Tags = slices.Clone(c.sess.Tags)
	sess.UpdatedAt = node.Data.Timestamp
	newBranch := false
	if e.BranchID != "" {
		if b == nil {
			newBranch = true
			sess.BranchCount = len(c.branches) + 1
		}
	} else {
		sess.ThoughtCount = len(c.main) + 1
	}
	if c.p != nil {
		if err := c.p.Append(&sess, node, prevCopy); err != nil {
			return Appended{}, err
		}
	}
	if prev != nil {
		prev.Next = prevCopy.Next
	}
	c.sess = sess
	c.moved()
	c.insert(node, b)
	return Appended{Node: node.Clone(), AutoNumbered: auto, NewBranch: newBranch}, nil
}

// plan builds the node for e without changing the chain.
func (c *Chain) plan(e Entry) (node *Node, prev *Node, b *branch, auto bool, err error) {
	sid := c.sess.ID
	n := e.ThoughtNumber
	if e.BranchID != "" {
		b = c.branches[e.BranchID]
		if e.BranchFromThought == nil {
			return nil, nil, nil, false, ruleErr("branchId requires branchFromThought")
		}
		fork := *e.BranchFromThought
		if c.main[fork] == nil {
			return nil, nil, nil, false, ruleErr("branchFromThought %d does not name an existing main-chain thought of this session; branches fork from a main-chain thought", fork)
		}
		if b != nil && b.fork != fork {
			return nil, nil, nil, false, ruleErr("branch '%s' forks from thought %d; every thought of the branch must give branchFromThought: %d", e.BranchID, b.fork, b.fork)
		}
		if n == 0 {
			auto = true
			n = c.maxMain + 1
			if b != nil && b.max >= n {
				n = b.max + 1
			}
			if n > MaxThoughtNumber {
				return nil, nil, nil, false, limitErr()
			}
		}
		if b != nil && b.nodes[n] != nil {
			return nil, nil, nil, false, ruleErr("thought %d already exists in branch '%s'; omit thoughtNumber to append, or record a revision with isRevision: true and revisesThought: %d", n, e.BranchID, n)
		}
		prev = c.main[fork]
	} else {
		if e.BranchFromThought != nil {
			return nil, nil, nil, false, ruleErr("branchFromThought requires branchId: name the branch (lowercase letters, digits and hyphens)")
		}
		if n == 0 {
			auto = true
			n = c.maxMain + 1
			if n > MaxThoughtNumber {
				return nil, nil, nil, false, limitErr()
			}
		}
		if c.main[n] != nil {
			return nil, nil, nil, false, ruleErr("thought %d already exists in this session; omit thoughtNumber to append, or record a revision with isRevision: true and revisesThought: %d", n, n)
		}
		prev = c.tail
	}
	if e.IsRevision != nil && *e.IsRevision && e.RevisesThought == nil {
		return nil, nil, nil, false, ruleErr("isRevision requires revisesThought: give the number of the thought this one revises")
	}
	var revises *string
	if e.RevisesThought != nil {
		r := *e.RevisesThought
		if e.BranchID != "" {
			if b == nil || b.nodes[r] == nil {
				return nil, nil, nil, false, ruleErr("revisesThought %d does not name an existing thought of branch '%s'", r, e.BranchID)
			}
			id := BranchNodeID(sid, e.BranchID, r)
			revises = &id
		} else {
			if c.main[r] == nil {
				return nil, nil, nil, false, ruleErr("revisesThought %d does not name an existing main-chain thought of this session", r)
			}
			id := MainNodeID(sid, r)
			revises = &id
		}
	}
	total := e.TotalThoughts
	if total < n {
		total = n
	}
	node = &Node{
		Data: ThoughtData{
			Thought: e.Thought, ThoughtNumber: n, TotalThoughts: total, NextThoughtNeeded: e.NextThoughtNeeded,
			IsRevision: e.IsRevision, RevisesThought: e.RevisesThought, BranchFromThought: e.BranchFromThought,
			BranchID: e.BranchID, NeedsMoreThoughts: e.NeedsMoreThoughts, IncludeGuide: e.IncludeGuide,
			AgentID: e.AgentID, AgentName: e.AgentName, Timestamp: FormatTime(c.now()),
		},
		Next:        []string{},
		RevisesNode: revises,
	}
	if e.BranchID != "" {
		node.ID = BranchNodeID(sid, e.BranchID, n)
		bid := e.BranchID
		node.BranchID = &bid
		origin := MainNodeID(sid, *e.BranchFromThought)
		node.BranchOrigin = &origin
	} else {
		node.ID = MainNodeID(sid, n)
	}
	if prev != nil {
		id := prev.ID
		node.Prev = &id
	}
	return node, prev, b, auto, nil
}

// insert adds a planned node to the indexes. b is the node's existing branch
// or nil.
func (c *Chain) insert(n *Node, b *branch) {
	c.byID[n.ID] = n
	c.order = append(c.order, n)
	num := n.Data.ThoughtNumber
	if n.BranchID == nil {
		c.main[num] = n
		if len(c.mainSorted) > 0 && c.mainSorted[len(c.mainSorted)-1].Data.ThoughtNumber > num {
			c.mainDirty = true
		}
		c.mainSorted = append(c.mainSorted, n)
		c.tail = n
		if num > c.maxMain {
			c.maxMain = num
		}
		return
	}
	if b == nil {
		fork := 0
		if n.Data.BranchFromThought != nil {
			fork = *n.Data.BranchFromThought
		}
		b = &branch{id: *n.BranchID, fork: fork, nodes: map[int]*Node{}}
		c.branches[b.id] = b
		c.branchOrder = append(c.branchOrder, b.id)
	}
	b.nodes[num] = n
	if len(b.sorted) > 0 && b.sorted[len(b.sorted)-1].Data.ThoughtNumber > num {
		b.dirty = true
	}
	b.sorted = append(b.sorted, n)
	if num > b.max {
		b.max = num
	}
}

// Load inserts a node read back from storage. Nodes must be loaded in the
// order they were created; the node's stored links are kept, except Next,
// which is rebuilt from the Prev links of the nodes loaded after it. It
// reports false, and changes nothing, when a node with this id is already
// loaded (a duplicate record, which the caller reports).
func (c *Chain) Load(n Node) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	node := n.Clone()
	node.Next = []string{}
	if old := c.byID[node.ID]; old != nil {
		return false
	}
	var b *branch
	if node.BranchID != nil {
		b = c.branches[*node.BranchID]
	}
	c.insert(&node, b)
	if node.Prev != nil {
		if p := c.byID[*node.Prev]; p != nil && !slices.Contains(p.Next, node.ID) {
			p.Next = append(p.Next, node.ID)
		}
	}
	c.sess.ThoughtCount = len(c.main)
	c.sess.BranchCount = len(c.branches)
	if node.Data.Timestamp > c.sess.UpdatedAt {
		c.sess.UpdatedAt = node.Data.Timestamp
		c.moved()
	}
	return true
}

// SetCritique attaches a critique to the node with this id and persists it.
func (c *Chain) SetCritique(id string, cr Critique) error {
	if err := c.setCritiqueLocked(id, cr); err != nil {
		return err
	}
	return c.waitDurable()
}

func (c *Chain) setCritiqueLocked(id string, cr Critique) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.byID[id]
	if n == nil {
		return fmt.Errorf("thought %s not found", id)
	}
	updated := n.Clone()
	updated.Data.Critique = &cr
	if c.p != nil {
		if err := c.p.Rewrite(&c.sess, &updated); err != nil {
			return err
		}
	}
	n.Data.Critique = &cr
	return nil
}

// Touch records in memory that the session was accessed now. Reads never
// write: the time reaches storage with the session's next change.
func (c *Chain) Touch() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sess.LastAccessedAt = FormatTime(c.now())
}

// Reload replaces the data of a node already loaded (a journal rewrite
// record, such as an added critique). Unknown ids are ignored.
func (c *Chain) Reload(n Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.byID[n.ID]; old != nil {
		old.Data = n.Clone().Data
	}
}

// SetMetadata replaces the session metadata fields a journal records (title,
// description, tags and timestamps) when loading; counts stay derived from
// the nodes.
func (c *Chain) SetMetadata(s Session) {
	c.noteTags(s.Tags)
	defer c.noteTags(nil)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sess.Title, c.sess.Description, c.sess.Tags = s.Title, s.Description, s.Tags
	c.sess.CreatedAt, c.sess.UpdatedAt, c.sess.LastAccessedAt = s.CreatedAt, s.UpdatedAt, s.LastAccessedAt
	if c.sess.Tags == nil {
		c.sess.Tags = []string{}
	}
	c.moved()
}
