package load

import (
	"sort"
	"sync"
)

// ack is one acknowledged thought: the server answered the thought call
// without an error and gave it a number.
type ack struct {
	// Chain is "" for the main chain, else the branch id.
	Chain  string
	Number int
	// Marker is a string of the thought's text that only this thought
	// carries (it holds the run's nonce).
	Marker string
}

// acks collects the acknowledged thoughts of a run by reasoning session.
type acks struct {
	mu       sync.Mutex
	sessions map[string][]ack
	order    []string
	count    int
	// onNew, when set, is told every new session id (under the lock).
	onNew func(session string)
}

func newAcks() *acks { return &acks{sessions: map[string][]ack{}} }

func (a *acks) add(session string, k ack) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.sessions[session]; !ok {
		a.order = append(a.order, session)
		if a.onNew != nil {
			a.onNew(session)
		}
	}
	a.sessions[session] = append(a.sessions[session], k)
	a.count++
}

// Len returns the number of acknowledged thoughts.
func (a *acks) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.count
}

// bySession returns the sessions in the order they were first acknowledged,
// each with its thoughts sorted by chain and number.
func (a *acks) bySession() ([]string, map[string][]ack) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string][]ack, len(a.sessions))
	for id, ks := range a.sessions {
		ks = append([]ack(nil), ks...)
		sort.Slice(ks, func(i, j int) bool {
			if ks[i].Chain != ks[j].Chain {
				return ks[i].Chain < ks[j].Chain
			}
			return ks[i].Number < ks[j].Number
		})
		out[id] = ks
	}
	return append([]string(nil), a.order...), out
}
