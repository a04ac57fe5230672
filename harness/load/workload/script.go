package workload

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Step is one call of a virtual user's script.
type Step struct {
	// Op labels the call in per-operation metrics.
	Op Op
	// Operation is the gateway operation: start_new, cipher, thought,
	// read_thoughts, get_structure or session.
	Operation string
	// Args are the operation's arguments. Each Script call returns fresh
	// maps, which the runner completes: "thought" for steps with TextBytes,
	// "sessionId" for steps with FillSessionID.
	Args map[string]any
	// TextBytes is the size of the thought text the runner writes into
	// Args["thought"] (carrying the run's nonce); zero for steps that record
	// no thought.
	TextBytes int
	// Records is the thought the step records, for the verification pass
	// that reads back every acknowledged thought; zero for other steps.
	Records ThoughtRef
	// FillSessionID asks the runner to set Args["sessionId"] to the id of the
	// virtual user's current reasoning session (session get).
	FillSessionID bool
	// Think is the pause before the call in closed-loop runs.
	Think time.Duration
}

// RecordsThought reports whether the step records a thought.
func (s Step) RecordsThought() bool { return s.Records.Number > 0 }

// Arguments returns the arguments of the Tool call: {"operation": …,
// "args": …}.
func (s Step) Arguments() map[string]any {
	return map[string]any{"operation": s.Operation, "args": s.Args}
}

// ThoughtRef names a thought of a reasoning session: its chain (the main
// chain, or a branch by id) and its number in that chain.
type ThoughtRef struct {
	// Branch is the branch id, empty for the main chain.
	Branch string
	// Number is the thought number.
	Number int
}

// String returns "main#3" or "b1#4".
func (r ThoughtRef) String() string {
	chain := r.Branch
	if chain == "" {
		chain = "main"
	}
	return fmt.Sprintf("%s#%d", chain, r.Number)
}

// Script returns the calls of virtual user vu's reasoning session number
// session (both 0-based) under seed, using the workload's session shape.
func (w *Workload) Script(seed int64, vu, session int) []Step {
	return w.Session.Script(seed, vu, session)
}

// Script returns the calls of virtual user vu's reasoning session number
// session. The same seed, vu, session and shape always give the same steps.
//
// A script is: start_new, cipher, then main-chain thoughts 1 … N (N drawn
// from Thoughts), each a forward thought or, for 2 ≤ k < N, possibly a
// revision of an earlier main-chain thought; after each main-chain thought
// but the last, possibly a branch thought (a new branch b1, b2, … forking
// from an existing main-chain thought, or the next thought of an existing
// branch); after each thought but the last, possibly read_thoughts and
// get_structure; once per session, possibly session list and session get; and
// the closing thought N with nextThoughtNeeded false, which closes and exports
// the session.
func (s Session) Script(seed int64, vu, session int) []Step {
	g := &scripter{
		s:     s,
		shape: newRand(seed, vu, session, 0),
		pause: newRand(seed, vu, session, 1),
	}
	return g.script()
}

// newRand returns a generator for one stream of one session's choices.
func newRand(seed int64, vu, session, stream int) *rand.Rand {
	a := mix(uint64(seed))
	b := mix(a ^ uint64(vu)<<32 ^ uint64(uint32(session)) ^ uint64(stream)<<62)
	return rand.New(rand.NewPCG(a, b))
}

// mix is the splitmix64 finaliser.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// branchState is a branch opened by a script.
type branchState struct {
	id   string
	fork int
	last int
}

// scripter builds one script. shape drives the sequence of calls, pause only
// the think times, so that changing think times leaves the calls as they are.
type scripter struct {
	s        Session
	shape    *rand.Rand
	pause    *rand.Rand
	n        int
	steps    []Step
	branches []*branchState
}

func (g *scripter) between(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + g.shape.IntN(hi-lo+1)
}

func (g *scripter) chance(p float64) bool { return p > 0 && g.shape.Float64() < p }

func (g *scripter) think() time.Duration {
	r := g.s.ThinkTime
	if r.Max <= r.Min {
		return r.Min
	}
	return r.Min + time.Duration(g.pause.Int64N(int64(r.Max-r.Min)+1))
}

func (g *scripter) add(st Step) {
	if len(g.steps) > 0 {
		st.Think = g.think()
	}
	g.steps = append(g.steps, st)
}

func (g *scripter) script() []Step {
	s := g.s
	g.n = g.between(s.Thoughts.Min, s.Thoughts.Max)
	g.steps = make([]Step, 0, 2+g.n*2)
	// The thought after which session list and get come; the closing one
	// only when it is the only thought.
	last := max(g.n-1, 1)
	listAt, getAt := 0, 0
	if g.chance(s.SessionList) {
		listAt = g.between(1, last)
	}
	if g.chance(s.SessionGet) {
		getAt = g.between(1, last)
	}
	g.add(Step{Op: OpStartNew, Operation: "start_new", Args: map[string]any{"newWork": map[string]any{"project": Project}}})
	g.add(Step{Op: OpCipher, Operation: "cipher", Args: map[string]any{}})
	for k := 1; k <= g.n; k++ {
		switch {
		case k == g.n:
			g.add(g.mainThought(OpClose, k, false))
		case k >= 2 && g.chance(s.Revision):
			st := g.mainThought(OpRevision, k, true)
			st.Args["isRevision"] = true
			st.Args["revisesThought"] = g.between(1, k-1)
			g.add(st)
		default:
			g.add(g.mainThought(OpThought, k, true))
		}
		if k < g.n {
			g.reads(k)
			if g.chance(s.Branch) {
				g.branchThought(k)
				g.reads(k)
			}
		}
		if k == listAt {
			g.add(Step{Op: OpSessionList, Operation: "session", Args: map[string]any{"operation": "list", "limit": s.ListLimit}})
		}
		if k == getAt {
			g.add(Step{Op: OpSessionGet, Operation: "session", Args: map[string]any{"operation": "get"}, FillSessionID: true})
		}
	}
	return g.steps
}

// mainThought returns main-chain thought k of n.
func (g *scripter) mainThought(op Op, k int, next bool) Step {
	return Step{
		Op: op, Operation: "thought",
		Args:      map[string]any{"thoughtNumber": k, "totalThoughts": g.n, "nextThoughtNeeded": next},
		TextBytes: g.between(g.s.ThoughtBytes.Min, g.s.ThoughtBytes.Max),
		Records:   ThoughtRef{Number: k},
	}
}

// branchThought adds a branch thought after main-chain thought k: the next
// thought of an existing branch, or the first of a new one forking from one
// of thoughts 1 … k and numbered k+1.
func (g *scripter) branchThought(k int) {
	var b *branchState
	if len(g.branches) > 0 && g.chance(g.s.BranchContinue) {
		b = g.branches[g.shape.IntN(len(g.branches))]
		b.last++
	} else {
		b = &branchState{id: fmt.Sprintf("b%d", len(g.branches)+1), fork: g.between(1, k), last: k + 1}
		g.branches = append(g.branches, b)
	}
	g.add(Step{
		Op: OpBranch, Operation: "thought",
		Args: map[string]any{
			"thoughtNumber": b.last, "totalThoughts": max(g.n, b.last), "nextThoughtNeeded": true,
			"branchFromThought": b.fork, "branchId": b.id,
		},
		TextBytes: g.between(g.s.ThoughtBytes.Min, g.s.ThoughtBytes.Max),
		Records:   ThoughtRef{Branch: b.id, Number: b.last},
	})
}

// reads adds the read_thoughts and get_structure calls that may follow a
// thought, when main-chain thoughts 1 … k exist.
func (g *scripter) reads(k int) {
	if g.chance(g.s.ReadThoughts) {
		g.add(Step{Op: OpReadThoughts, Operation: "read_thoughts", Args: g.readArgs(k)})
	}
	if g.chance(g.s.GetStructure) {
		g.add(Step{Op: OpGetStructure, Operation: "get_structure", Args: map[string]any{}})
	}
}

// readArgs picks one of read_thoughts' forms: the last few thoughts, one
// thought by number, a range, or a branch.
func (g *scripter) readArgs(k int) map[string]any {
	forms := 3
	if len(g.branches) > 0 {
		forms = 4
	}
	switch g.shape.IntN(forms) {
	case 0:
		return map[string]any{"last": g.between(1, min(k, 5))}
	case 1:
		return map[string]any{"thoughtNumber": g.between(1, k)}
	case 2:
		from := g.between(1, k)
		return map[string]any{"range": []int{from, g.between(from, min(k, from+9))}}
	}
	return map[string]any{"branchId": g.branches[g.shape.IntN(len(g.branches))].id}
}
