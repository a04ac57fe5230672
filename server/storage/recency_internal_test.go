package storage

import (
	"fmt"
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
