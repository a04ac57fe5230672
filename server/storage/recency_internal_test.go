package storage

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestRecencyKeepsItsLogBounded checks that the order of updates does not
// grow with the updates: however often its chains change, the log holds at
// most one live and one cleared entry per chain, and 65 more.
func TestRecencyKeepsItsLogBounded(t *testing.T) {
	reg := NewRegistry()
	var chains []*Chain
	for i := range 10 {
		c := NewChain(Session{ID: fmt.Sprintf("s%d", i)}, nil, nil)
		reg.Add(c)
		chains = append(chains, c)
	}
	for i := range 5000 {
		c := chains[i%len(chains)]
		c.SetMetadata(Session{UpdatedAt: fmt.Sprintf("2026-11-27T00:00:00.%06dZ", i)})
	}
	reg.recentMu.Lock()
	n := len(reg.recent.log)
	reg.recentMu.Unlock()
	if limit := 2*len(chains) + 65; n > limit {
		t.Fatalf("after 5,000 updates of %d chains the log holds %d entries, more than %d", len(chains), n, limit)
	}
}

// TestRecencyPlacesUpdatesOfTheSameInstant checks the log against a sort
// after every change, with update times that often tie (ordered then by the
// order the items were added) and sometimes go back a little or a long way;
// and that the ties and short steps back are put in place as they come, so
// that a read does not sort the log again.
func TestRecencyPlacesUpdatesOfTheSameInstant(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var r Recency[int]
	updated := map[int]string{}
	order := map[int]int64{}
	at := func(ms int) string { return fmt.Sprintf("2026-11-27T00:00:%06.3fZ", float64(ms)/1000) }
	now := 0
	sorts := 0
	for step := range 4000 {
		item := rng.IntN(300)
		if rng.IntN(4) == 0 {
			now++
		}
		when := now
		far := rng.IntN(50) == 0
		if far {
			when = max(0, now-rng.IntN(200)) // one update from a clock a long way back
		}
		if _, ok := order[item]; !ok {
			order[item] = int64(len(order))
			r.Add(item, at(when), order[item])
		} else {
			r.Move(item, at(when))
		}
		updated[item] = at(when)
		if r.unsorted {
			sorts++
			if !far && step > 0 {
				// A tie or a step back of no more than the last few
				// updates is placed in its place.
				if !farFromItsPlace(r.log, nearby) {
					t.Fatalf("step %d: an update of the same instant marked the log out of order", step)
				}
			}
		}
		var got []int
		for it := range r.Newest() {
			got = append(got, it)
		}
		want := make([]int, 0, len(updated))
		for it := range updated {
			want = append(want, it)
		}
		slices.SortFunc(want, func(a, b int) int {
			if c := strings.Compare(updated[b], updated[a]); c != 0 {
				return c
			}
			return cmp.Compare(order[a], order[b])
		})
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: Newest gives %v, want %v", step, got[:min(10, len(got))], want[:min(10, len(want))])
		}
	}
	if sorts > 4000/50*2 {
		t.Errorf("%d of 4,000 updates left the log to be sorted, more than the clock going back explains", sorts)
	}
}

// farFromItsPlace reports whether putting log's last entry in its place
// would move n entries or more.
func farFromItsPlace(log []recent[int], n int) bool {
	e := log[len(log)-1]
	moved := 0
	for i := len(log) - 2; i >= 0 && log[i].before(&e); i-- {
		moved++
	}
	return moved >= n
}
