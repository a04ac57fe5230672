package storage

import (
	"slices"
	"sort"
)

// Session returns a copy of the session metadata.
func (c *Chain) Session() Session {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.sessionCopy()
}

func (c *Chain) sessionCopy() Session {
	s := c.sess
	s.Tags = slices.Clone(c.sess.Tags)
	if s.Tags == nil {
		s.Tags = []string{}
	}
	return s
}

func sortNodes(nodes []*Node) {
	sort.SliceStable(nodes, func(i, j int) bool { return nodes[i].Data.ThoughtNumber < nodes[j].Data.ThoughtNumber })
}

func clones(nodes []*Node) []Node {
	out := make([]Node, len(nodes))
	for i, n := range nodes {
		out[i] = n.Clone()
	}
	return out
}

// sortedMainLocked returns the main chain sorted by number. The caller holds
// the write lock.
func (c *Chain) sortedMainLocked() []*Node {
	if c.mainDirty {
		sortNodes(c.mainSorted)
		c.mainDirty = false
	}
	return c.mainSorted
}

// Main returns the main-chain thoughts sorted by thought number.
func (c *Chain) Main() []Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	return clones(c.sortedMainLocked())
}

// LastMain returns the k highest-numbered main-chain thoughts in ascending order.
func (c *Chain) LastMain(k int) []Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	nodes := c.sortedMainLocked()
	if k < len(nodes) {
		nodes = nodes[len(nodes)-k:]
	}
	return clones(nodes)
}

// MainRange returns main-chain thoughts numbered from..to inclusive.
func (c *Chain) MainRange(from, to int) []Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	nodes := c.sortedMainLocked()
	lo := sort.Search(len(nodes), func(i int) bool { return nodes[i].Data.ThoughtNumber >= from })
	hi := sort.Search(len(nodes), func(i int) bool { return nodes[i].Data.ThoughtNumber > to })
	if hi < lo {
		hi = lo
	}
	return clones(nodes[lo:hi])
}

// MainThought returns main-chain thought n.
func (c *Chain) MainThought(n int) (Node, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if node := c.main[n]; node != nil {
		return node.Clone(), true
	}
	return Node{}, false
}

// BranchThought returns thought n of branch b.
func (c *Chain) BranchThought(b string, n int) (Node, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if br := c.branches[b]; br != nil && br.nodes[n] != nil {
		return br.nodes[n].Clone(), true
	}
	return Node{}, false
}

// Branch returns the thoughts of branch b sorted by number (nil when the
// branch does not exist).
func (c *Chain) Branch(b string) []Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	br := c.branches[b]
	if br == nil {
		return nil
	}
	if br.dirty {
		sortNodes(br.sorted)
		br.dirty = false
	}
	return clones(br.sorted)
}

// Branches summarises the branches in the order they were opened.
func (c *Chain) Branches() []BranchInfo {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]BranchInfo, 0, len(c.branchOrder))
	for _, id := range c.branchOrder {
		br := c.branches[id]
		info := BranchInfo{ID: id, Fork: br.fork, Count: len(br.nodes)}
		first := true
		for n := range br.nodes {
			if first || n < info.First {
				info.First = n
			}
			if first || n > info.Last {
				info.Last = n
			}
			first = false
		}
		out = append(out, info)
	}
	return out
}

// Nodes returns every node, main chain and branches, sorted by thought
// number; nodes with equal numbers keep their creation order.
func (c *Chain) Nodes() []Node {
	c.mu.RLock()
	nodes := slices.Clone(c.order)
	out := clones(nodes)
	c.mu.RUnlock()
	sort.SliceStable(out, func(i, j int) bool { return out[i].Data.ThoughtNumber < out[j].Data.ThoughtNumber })
	return out
}

// CreationOrder returns every node in the order it was created.
func (c *Chain) CreationOrder() []Node {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return clones(c.order)
}

// Len returns the number of main-chain thoughts and of all thoughts.
func (c *Chain) Len() (mainCount, total int) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.main), len(c.order)
}

// MaxMain returns the highest main-chain thought number (0 when empty).
func (c *Chain) MaxMain() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.maxMain
}

// Node returns the node with this id.
func (c *Chain) Node(id string) (Node, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n := c.byID[id]
	if n == nil {
		return Node{}, false
	}
	return n.Clone(), true
}
