// Package workload describes what a load run sends: the shape of one virtual
// user's reasoning session (how many thoughts, how large, how often it
// branches, revises, reads and lists) and the parameters and thresholds of
// each load tier. A workload comes from a YAML or JSON file (see README.md and
// workload.schema.json) or from Default, and turns into deterministic call
// sequences with Script.
package workload

import (
	"fmt"
	"time"
)

// Workload is a validated workload file.
type Workload struct {
	// Source names where the workload came from: a file name, or "default".
	Source string
	// Session is the shape of every virtual user's reasoning sessions.
	Session Session
	// Tiers holds the parameters of every tier, by name (see TierNames).
	Tiers map[string]Tier
}

// Tier returns the named tier's parameters, or an error naming the tiers
// there are.
func (w *Workload) Tier(name string) (Tier, error) {
	t, ok := w.Tiers[name]
	if !ok {
		return Tier{}, fmt.Errorf("unknown tier %q (want one of %s)", name, tierList())
	}
	return t, nil
}

// IntRange is an inclusive range of whole numbers; Min == Max is a constant.
type IntRange struct {
	Min int
	Max int
}

// DurationRange is an inclusive range of durations; Min == Max is a constant.
type DurationRange struct {
	Min time.Duration
	Max time.Duration
}

// Session is the shape of one virtual user's reasoning sessions. Every
// probability is in [0, 1].
type Session struct {
	// Thoughts is the number of main-chain thoughts of a reasoning session,
	// numbered 1 … N, the closing thought (number N) included. Branch
	// thoughts come on top of them.
	Thoughts IntRange
	// ThoughtBytes is the size of a thought's text in bytes.
	ThoughtBytes IntRange
	// ThinkTime is the pause of a closed-loop virtual user before each call
	// but the first of a reasoning session. Open-loop runs ignore it.
	ThinkTime DurationRange
	// Branch is the probability that a branch thought follows a main-chain
	// thought (other than the closing one).
	Branch float64
	// BranchContinue is the probability that a branch thought continues an
	// existing branch rather than opening a new one.
	BranchContinue float64
	// Revision is the probability that a main-chain thought other than the
	// first and the closing one revises an earlier main-chain thought.
	Revision float64
	// ReadThoughts is the probability of a read_thoughts call after a thought.
	ReadThoughts float64
	// GetStructure is the probability of a get_structure call after a thought.
	GetStructure float64
	// SessionList is the probability that a reasoning session makes one
	// `session list` call.
	SessionList float64
	// SessionGet is the probability that a reasoning session makes one
	// `session get` call on itself.
	SessionGet float64
	// ListLimit is the limit of `session list` calls (1 … 1000).
	ListLimit int
}

// WithThoughts returns a copy of s whose reasoning sessions have exactly n
// main-chain thoughts, as the long-session tier needs.
func (s Session) WithThoughts(n int) Session {
	s.Thoughts = IntRange{Min: n, Max: n}
	return s
}
