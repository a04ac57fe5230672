package storage

import (
	"slices"
	"sort"
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
// keep registration order.
func (r *Registry) List(f Filter) []Session {
	chains := r.All()
	out := make([]Session, 0, len(chains))
	search := strings.ToLower(f.Search)
	for _, c := range chains {
		s := c.Session()
		if len(f.AnyTags) > 0 && !slices.ContainsFunc(f.AnyTags, func(t string) bool { return slices.Contains(s.Tags, t) }) {
			continue
		}
		if search != "" && !matches(s, search) {
			continue
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].UpdatedAt > out[j].UpdatedAt })
	return out
}

func matches(s Session, lower string) bool {
	if strings.Contains(strings.ToLower(s.Title), lower) {
		return true
	}
	if s.Description != nil && strings.Contains(strings.ToLower(*s.Description), lower) {
		return true
	}
	return slices.ContainsFunc(s.Tags, func(t string) bool { return strings.Contains(strings.ToLower(t), lower) })
}
