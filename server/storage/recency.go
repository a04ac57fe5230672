package storage

import (
	"cmp"
	"iter"
	"slices"
	"strings"
)

// Recency keeps items (sessions, by whatever a backend keys them) in List's
// order: the newest update first, ties in the order the items were added
// (their order number). Newest reads them in that order without sorting
// them again after a change, so that a page of List costs the page, not a
// sort or a pass over every session of the store.
//
// It is a log of the items' update times in the reverse of List's order: an
// item whose update time changes gets a new entry at the end and its old
// one is cleared. A store mostly sets an update time to the present, so the
// log stays in order. An entry that belongs a few entries from the end (an
// update in the same millisecond as the last ones, of an item added
// earlier) is put in its place; one that belongs further back (a session
// loaded from storage, or a clock that went back) marks the log out of
// order, and the next read sorts it. The log is compacted when it holds more
// cleared entries than live ones, so it never holds more than about two
// entries per item.
//
// A Recency is not safe for concurrent use: its owner locks it.
type Recency[T comparable] struct {
	log []recent[T]
	// at is each item's live entry in log.
	at       map[T]int
	cleared  int
	unsorted bool
}

type recent[T comparable] struct {
	item    T
	updated string
	order   int64
	live    bool
}

// ListOrder compares two sessions in List's order, each given by its
// update time (RFC 3339 in UTC, which sorts as text) and the order in which
// it was added: the newest update first, ties in the order added. It is
// negative when a comes first, positive when b does, and 0 for the same
// time and order. Every backend's List, and Recency, order by it.
func ListOrder(updatedA string, orderA int64, updatedB string, orderB int64) int {
	if c := strings.Compare(updatedB, updatedA); c != 0 {
		return c
	}
	return cmp.Compare(orderA, orderB)
}

// before reports whether a comes before b in List's order.
func (a *recent[T]) before(b *recent[T]) bool {
	return ListOrder(a.updated, a.order, b.updated, b.order) < 0
}

// Add gives item, the order-th added, its update time; it does nothing
// when item is already there.
func (r *Recency[T]) Add(item T, updated string, order int64) {
	if r.at == nil {
		r.at = map[T]int{}
	}
	if _, ok := r.at[item]; ok {
		return
	}
	r.append(recent[T]{item: item, updated: updated, order: order, live: true})
}

// Move gives item its new update time; it does nothing when item is not
// there.
func (r *Recency[T]) Move(item T, updated string) {
	i, ok := r.at[item]
	if !ok || r.log[i].updated == updated {
		return
	}
	e := r.log[i]
	r.log[i].live = false
	r.cleared++
	e.updated = updated
	r.append(e)
	if r.cleared > len(r.at)+64 {
		r.compact()
	}
}

// Len returns the number of items.
func (r *Recency[T]) Len() int { return len(r.at) }

// Newest yields the items in List's order.
func (r *Recency[T]) Newest() iter.Seq[T] {
	if r.unsorted {
		r.compact()
	}
	return func(yield func(T) bool) {
		for i := len(r.log) - 1; i >= 0; i-- {
			if r.log[i].live && !yield(r.log[i].item) {
				return
			}
		}
	}
}

// nearby is how far from the end of the log append still puts an entry in
// its place: updates made in the same instant (the times have a resolution
// of a millisecond) land a few entries from the end, ordered by the order
// the items were added, and placing them costs those few entries, where
// marking the log out of order cost the next read a sort of every session.
const nearby = 32

func (r *Recency[T]) append(e recent[T]) {
	n := len(r.log)
	p := n
	for p > 0 && n-p < nearby && r.log[p-1].before(&e) {
		p--
	}
	if p > 0 && r.log[p-1].before(&e) {
		// Far from the end (a session loaded from storage, a clock that
		// went back): the next read sorts the log.
		r.unsorted = true
		p = n
	}
	r.log = append(r.log, e)
	if p < n {
		copy(r.log[p+1:], r.log[p:n])
		r.log[p] = e
		for i := p + 1; i <= n; i++ {
			if r.log[i].live {
				r.at[r.log[i].item] = i
			}
		}
	}
	r.at[e.item] = p
}

// compact drops the cleared entries and puts the log in order.
func (r *Recency[T]) compact() {
	live := r.log[:0]
	for _, e := range r.log {
		if e.live {
			live = append(live, e)
		}
	}
	clear(r.log[len(live):])
	r.log = live
	if r.unsorted {
		slices.SortFunc(r.log, func(a, b recent[T]) int {
			switch {
			case a.before(&b):
				return 1
			case b.before(&a):
				return -1
			}
			return 0
		})
		r.unsorted = false
	}
	for i, e := range r.log {
		r.at[e.item] = i
	}
	r.cleared = 0
}
