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
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{chains: map[string]*Chain{}} }

// Add registers a chain under its session id.
func (r *Registry) Add(c *Chain) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.chains[c.ID()]; ok {
		return
	}
	r.chains[c.ID()] = c
	r.order = append(r.order, c)
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
// keep registration order. Only the sessions returned are copied: the
// others are matched and ordered under their chain's read lock.
func (r *Registry) List(f Filter) []Session {
	type hit struct {
		c       *Chain
		updated string
		order   int
	}
	search := strings.ToLower(f.Search)
	r.mu.RLock()
	hits := make([]hit, 0, len(r.order))
	for i, c := range r.order {
		if updated, ok := c.listKey(f.AnyTags, search); ok {
			hits = append(hits, hit{c, updated, i})
		}
	}
	r.mu.RUnlock()
	slices.SortFunc(hits, func(a, b hit) int {
		if c := strings.Compare(b.updated, a.updated); c != 0 {
			return c
		}
		return a.order - b.order
	})
	if f.Limit > 0 && len(hits) > f.Limit {
		hits = hits[:f.Limit]
	}
	out := make([]Session, len(hits))
	for i, h := range hits {
		out[i] = h.c.Session()
	}
	// A session written since it was ordered may have moved up: sort the
	// copies again so that the answer agrees with itself.
	newerFirst := func(a, b Session) int { return strings.Compare(b.UpdatedAt, a.UpdatedAt) }
	if !slices.IsSortedFunc(out, newerFirst) {
		slices.SortStableFunc(out, newerFirst)
	}
	return out
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
