package storage

import (
	"slices"
	"strings"
	"sync"
)

// Registry indexes the chains of a store by id and answers List queries.
// Both backends use it.
type Registry struct {
	mu     sync.RWMutex
	chains map[string]*Chain
	order  []*Chain
	// pos is each chain's place in order.
	pos map[*Chain]int
	// tagged holds, per tag, the chains that carried it at some time since
	// they were registered: a List by tags reads those only (start_new
	// lists by its scope's tags on every call, and most stored sessions
	// carry none of them). A chain that no longer carries a tag stays
	// under it; List checks each chain it reads.
	tagged map[string]map[*Chain]struct{}
	// recent holds the chains in List's order, for a page of List without
	// filters. Its lock is taken last: under a chain's lock (the chain
	// reports its new update time while it holds it, Chain.moved) or under
	// the registry's and a chain's (Add), never the other way round.
	recentMu sync.Mutex
	recent   Recency[*Chain]
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{chains: map[string]*Chain{}, pos: map[*Chain]int{}, tagged: map[string]map[*Chain]struct{}{}}
}

// Add registers a chain under its session id.
func (r *Registry) Add(c *Chain) {
	r.mu.Lock()
	if _, ok := r.chains[c.ID()]; ok {
		r.mu.Unlock()
		return
	}
	r.chains[c.ID()] = c
	r.pos[c] = len(r.order)
	r.order = append(r.order, c)
	// Under the chain's lock, so that its update time cannot change between
	// the reading here and the chain knowing to report it (Chain.moved).
	c.mu.RLock()
	r.recentMu.Lock()
	r.recent.Add(c, c.sess.UpdatedAt, int64(r.pos[c]))
	r.recentMu.Unlock()
	// Before its tags are read: a change of them from now on is noted by
	// the chain (Chain.noteTags).
	c.reg.Store(r)
	c.mu.RUnlock()
	r.mu.Unlock()
	// Read without the registry's lock, which List holds while it waits
	// for chains' locks.
	r.noteTags(c, c.tags())
}

// noteTags puts c under each of tags it is not under yet.
func (r *Registry) noteTags(c *Chain, tags []string) {
	noted := func(t string) bool { _, ok := r.tagged[t][c]; return ok }
	r.mu.RLock()
	all := !slices.ContainsFunc(tags, func(t string) bool { return !noted(t) })
	r.mu.RUnlock()
	if all {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range tags {
		if !noted(t) {
			if r.tagged[t] == nil {
				r.tagged[t] = map[*Chain]struct{}{}
			}
			r.tagged[t][c] = struct{}{}
		}
	}
}

// Get returns the chain with this id.
func (r *Registry) Get(id string) (*Chain, error) {
	r.mu.RLock()
	c := r.chains[id]
	r.mu.RUnlock()
	if c == nil {
		return nil, NotFound(id)
	}
	return c, nil
}

// All returns every chain in registration order.
func (r *Registry) All() []*Chain {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.order)
}

// List returns the sessions matching f, most recently updated first; ties
// keep registration order. Only the sessions returned are copied. A page
// without filters reads the newest chains only (recent); a List with
// filters, or of every session, matches each chain it reads.
func (r *Registry) List(f Filter) []Session {
	search := strings.ToLower(f.Search)
	var chains []*Chain
	if len(f.AnyTags) == 0 && search == "" && f.Limit > 0 {
		chains = r.newest(f.Limit)
	} else {
		chains = r.matching(f.AnyTags, search, f.Limit)
	}
	out := make([]Session, len(chains))
	for i, c := range chains {
		out[i] = c.Session()
	}
	// A session written since it was ordered may have moved up: sort the
	// copies again so that the answer agrees with itself.
	newerFirst := func(a, b Session) int { return strings.Compare(b.UpdatedAt, a.UpdatedAt) }
	if !slices.IsSortedFunc(out, newerFirst) {
		slices.SortStableFunc(out, newerFirst)
	}
	return out
}

// newest returns the first limit chains of List's order.
func (r *Registry) newest(limit int) []*Chain {
	r.recentMu.Lock()
	defer r.recentMu.Unlock()
	out := make([]*Chain, 0, min(limit, r.recent.Len()))
	for c := range r.recent.Newest() {
		out = append(out, c)
		if len(out) == limit {
			break
		}
	}
	return out
}

// matching returns, in List's order, the first limit chains (all when
// limit is not positive) that carry one of anyTags (when any are given)
// and match the lower-case search (when not empty). They are matched and
// ordered under their chain's read lock, without copying their sessions.
func (r *Registry) matching(anyTags []string, search string, limit int) []*Chain {
	hits := listHits{limit: limit}
	r.mu.RLock()
	if len(anyTags) == 0 {
		if limit <= 0 {
			hits.all = make([]listHit, 0, len(r.order))
		}
		for i, c := range r.order {
			if updated, ok := c.listKey(nil, search); ok {
				hits.add(listHit{c, updated, i})
			}
		}
	} else {
		seen := map[*Chain]bool{}
		for _, t := range anyTags {
			for c := range r.tagged[t] {
				if seen[c] {
					continue
				}
				seen[c] = true
				if updated, ok := c.listKey(anyTags, search); ok {
					hits.add(listHit{c, updated, r.pos[c]})
				}
			}
		}
	}
	r.mu.RUnlock()
	slices.SortFunc(hits.all, compareHits)
	out := make([]*Chain, len(hits.all))
	for i, h := range hits.all {
		out[i] = h.c
	}
	return out
}

// listHit is a chain List keeps, with the key it orders by: the time of
// its last update, newest first, then its registration order.
type listHit struct {
	c       *Chain
	updated string
	order   int
}

func compareHits(a, b listHit) int {
	return ListOrder(a.updated, int64(a.order), b.updated, int64(b.order))
}

// listHits collects List's hits. With a limit it keeps only the first
// limit of the order, in a heap whose root is the last of them, so that a
// page of a large store costs a pass over its sessions and no sort of all
// of them (session list asks for offset+limit+1, usually 21).
type listHits struct {
	limit int
	all   []listHit
}

func (h *listHits) add(x listHit) {
	switch {
	case h.limit <= 0:
		h.all = append(h.all, x)
	case len(h.all) < h.limit:
		h.all = append(h.all, x)
		h.up(len(h.all) - 1)
	case compareHits(x, h.all[0]) < 0:
		h.all[0] = x
		h.down(0)
	}
}

// up and down keep the heap: no hit sorts after its parent.
func (h *listHits) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if compareHits(h.all[i], h.all[parent]) <= 0 {
			return
		}
		h.all[i], h.all[parent] = h.all[parent], h.all[i]
		i = parent
	}
}

func (h *listHits) down(i int) {
	for {
		last, l, r := i, 2*i+1, 2*i+2
		if l < len(h.all) && compareHits(h.all[l], h.all[last]) > 0 {
			last = l
		}
		if r < len(h.all) && compareHits(h.all[r], h.all[last]) > 0 {
			last = r
		}
		if last == i {
			return
		}
		h.all[i], h.all[last] = h.all[last], h.all[i]
		i = last
	}
}

// moved tells the registry c is in, if any, of the session's update time.
// The caller holds c's lock and has just set it.
func (c *Chain) moved() {
	if r := c.reg.Load(); r != nil {
		r.recentMu.Lock()
		r.recent.Move(c, c.sess.UpdatedAt)
		r.recentMu.Unlock()
	}
}

// tags returns a copy of the session's tags.
func (c *Chain) tags() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.Clone(c.sess.Tags)
}

// noteTags has the registry c is in, if any, list c under tags (and under
// its tags now, when tags is nil). A change of a chain's tags calls it
// before and after the change: before, so that a List meanwhile does not
// pass c over; after, for a registry that took c while it changed (Add
// reads the tags after it has made itself known to c).
func (c *Chain) noteTags(tags []string) {
	r := c.reg.Load()
	if r == nil {
		return
	}
	if tags == nil {
		tags = c.tags()
	}
	r.noteTags(c, tags)
}

// listKey reports whether the chain's session carries one of anyTags (when
// any are given) and matches the lower-case search (when not empty), and
// returns its update time, without copying the session.
func (c *Chain) listKey(anyTags []string, search string) (string, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	s := &c.sess
	if len(anyTags) > 0 && !slices.ContainsFunc(anyTags, func(t string) bool { return slices.Contains(s.Tags, t) }) {
		return "", false
	}
	if search != "" && !matches(s, search) {
		return "", false
	}
	return s.UpdatedAt, true
}

func matches(s *Session, lower string) bool {
	if strings.Contains(strings.ToLower(s.Title), lower) {
		return true
	}
	if s.Description != nil && strings.Contains(strings.ToLower(*s.Description), lower) {
		return true
	}
	return slices.ContainsFunc(s.Tags, func(t string) bool { return strings.Contains(strings.ToLower(t), lower) })
}
