package storage

import (
	"slices"
	"sync"
)

// recency keeps a registry's chains in the order of their last update, so
// that a page of List without filters (session list's first page, limit
// 21) reads the newest chains only instead of every chain of the store.
//
// It is a log of the chains' update times in the reverse of List's order
// (oldest first, ties in reverse registration order): a chain whose update
// time changes gets a new entry at the end and its old one is cleared. A
// store mostly sets a chain's update time to the present, so the log stays
// in order; an entry that does not belong at the end (a session loaded
// from storage, an earlier time) marks it out of order, and the next page
// sorts it. The log is compacted when it holds more cleared entries than
// live ones.
//
// Its lock is taken last: under a chain's lock (the chain reports its new
// update time while it holds it) or under the registry's and a chain's
// (Add), never the other way round.
type recency struct {
	mu  sync.Mutex
	log []listHit
	// at is each chain's live entry in log.
	at       map[*Chain]int
	cleared  int
	unsorted bool
}

// insert gives c, registered at pos, its first entry.
func (x *recency) insert(c *Chain, updated string, pos int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.at == nil {
		x.at = map[*Chain]int{}
	}
	if _, ok := x.at[c]; ok {
		return
	}
	x.appendLocked(listHit{c, updated, pos})
}

// moved records c's new update time.
func (x *recency) moved(c *Chain, updated string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	i, ok := x.at[c]
	if !ok || x.log[i].updated == updated {
		return
	}
	h := x.log[i]
	x.log[i].c = nil
	x.cleared++
	h.updated = updated
	x.appendLocked(h)
	if x.cleared > len(x.at)+64 {
		x.compactLocked()
	}
}

func (x *recency) appendLocked(h listHit) {
	if n := len(x.log); n > 0 && compareHits(h, x.log[n-1]) > 0 {
		x.unsorted = true
	}
	x.at[h.c] = len(x.log)
	x.log = append(x.log, h)
}

// compactLocked drops the cleared entries and puts the log in order.
func (x *recency) compactLocked() {
	live := x.log[:0]
	for _, h := range x.log {
		if h.c != nil {
			live = append(live, h)
		}
	}
	clear(x.log[len(live):])
	x.log = live
	if x.unsorted {
		slices.SortFunc(x.log, func(a, b listHit) int { return compareHits(b, a) })
		x.unsorted = false
	}
	for i, h := range x.log {
		x.at[h.c] = i
	}
	x.cleared = 0
}

// newest returns the first limit hits of List's order (newest first, ties
// in registration order) among every chain registered.
func (x *recency) newest(limit int) []listHit {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.unsorted {
		x.compactLocked()
	}
	hits := make([]listHit, 0, min(limit, len(x.at)))
	for i := len(x.log) - 1; i >= 0 && len(hits) < limit; i-- {
		if x.log[i].c != nil {
			hits = append(hits, x.log[i])
		}
	}
	return hits
}
