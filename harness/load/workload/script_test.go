package workload

import (
	"reflect"
	"regexp"
	"testing"
	"time"
)

func TestScriptIsDeterministic(t *testing.T) {
	w := Default()
	a := w.Script(42, 3, 7)
	b := w.Script(42, 3, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, vu and session gave different scripts")
	}
	for _, other := range [][3]int64{{43, 3, 7}, {42, 4, 7}, {42, 3, 8}} {
		if reflect.DeepEqual(a, w.Script(other[0], int(other[1]), int(other[2]))) {
			t.Errorf("%v gave the same script as (42, 3, 7)", other)
		}
	}
}

func TestScriptsReturnFreshMaps(t *testing.T) {
	w := Default()
	a := w.Script(1, 0, 0)
	a[2].Args["thought"] = "written by the runner"
	if _, ok := w.Script(1, 0, 0)[2].Args["thought"]; ok {
		t.Error("scripts share argument maps")
	}
}

var branchIDPattern = regexp.MustCompile(`^[a-z0-9-]+$`)

// checkScript checks a script against the ledger's rules and the workload's
// shape, the way the reference server would judge it.
func checkScript(t *testing.T, s Session, steps []Step) {
	t.Helper()
	fail := func(i int, format string, a ...any) {
		t.Helper()
		t.Fatalf("step %d %+v: "+format, append([]any{i, steps[i]}, a...)...)
	}
	if len(steps) < 3 || steps[0].Op != OpStartNew || steps[1].Op != OpCipher {
		t.Fatalf("a script starts with start_new and cipher: %+v", steps)
	}
	if p := steps[0].Args["newWork"].(map[string]any)["project"]; p != Project {
		t.Errorf("start_new project %v", p)
	}
	type branch struct {
		fork    int
		numbers map[int]bool
	}
	var (
		n        int
		main     = map[int]bool{}
		maxMain  int
		branches = map[string]*branch{}
		closed   bool
		lists    int
		gets     int
	)
	for i, st := range steps {
		if i == 0 && st.Think != 0 {
			fail(i, "the first step has a think time")
		}
		if i > 0 && (st.Think < s.ThinkTime.Min || st.Think > s.ThinkTime.Max) {
			fail(i, "think time out of range")
		}
		if closed && st.Op != OpSessionList && st.Op != OpSessionGet {
			fail(i, "after the closing thought")
		}
		if st.RecordsThought() != (st.Operation == "thought") || (st.TextBytes > 0) != (st.Operation == "thought") {
			fail(i, "Records/TextBytes do not match the operation")
		}
		if st.RecordsThought() && (st.TextBytes < s.ThoughtBytes.Min || st.TextBytes > s.ThoughtBytes.Max) {
			fail(i, "text size out of range")
		}
		if st.FillSessionID != (st.Op == OpSessionGet) {
			fail(i, "FillSessionID on the wrong step")
		}
		switch st.Op {
		case OpStartNew, OpCipher:
			if i > 1 {
				fail(i, "start_new or cipher in the middle")
			}
		case OpThought, OpRevision, OpClose:
			k := st.Args["thoughtNumber"].(int)
			if n == 0 {
				n = st.Args["totalThoughts"].(int)
				if n < s.Thoughts.Min || n > s.Thoughts.Max {
					fail(i, "%d thoughts out of range", n)
				}
			}
			if k != maxMain+1 || st.Args["totalThoughts"] != n || st.Records != (ThoughtRef{Number: k}) {
				fail(i, "main-chain thought %d after %d of %d", k, maxMain, n)
			}
			if next := st.Args["nextThoughtNeeded"].(bool); next != (st.Op != OpClose) || (k == n) != (st.Op == OpClose) {
				fail(i, "nextThoughtNeeded %v for thought %d of %d", next, k, n)
			}
			if st.Op == OpRevision {
				r := st.Args["revisesThought"].(int)
				if st.Args["isRevision"] != true || !main[r] || r >= k {
					fail(i, "revision of %d", r)
				}
			} else if _, ok := st.Args["isRevision"]; ok {
				fail(i, "isRevision on a forward thought")
			}
			main[k], maxMain = true, k
			closed = st.Op == OpClose
		case OpBranch:
			id := st.Args["branchId"].(string)
			fork := st.Args["branchFromThought"].(int)
			num := st.Args["thoughtNumber"].(int)
			if !branchIDPattern.MatchString(id) || !main[fork] || st.Args["nextThoughtNeeded"] != true {
				fail(i, "branch %q from %d", id, fork)
			}
			b := branches[id]
			if b == nil {
				b = &branch{fork: fork, numbers: map[int]bool{}}
				branches[id] = b
			}
			if b.fork != fork || b.numbers[num] {
				fail(i, "branch %q: fork %d (first %d), number %d again", id, fork, b.fork, num)
			}
			if st.Records != (ThoughtRef{Branch: id, Number: num}) || st.Args["totalThoughts"].(int) < num {
				fail(i, "records %v", st.Records)
			}
			b.numbers[num] = true
		case OpReadThoughts:
			a := st.Args
			switch {
			case a["last"] != nil:
				if l := a["last"].(int); l < 1 || l > maxMain {
					fail(i, "last %d of %d", l, maxMain)
				}
			case a["thoughtNumber"] != nil:
				if !main[a["thoughtNumber"].(int)] {
					fail(i, "reads a thought that does not exist")
				}
			case a["range"] != nil:
				r := a["range"].([]int)
				if r[0] < 1 || r[0] > r[1] || r[1] > maxMain {
					fail(i, "range %v of %d", r, maxMain)
				}
			case a["branchId"] != nil:
				if branches[a["branchId"].(string)] == nil {
					fail(i, "reads a branch that does not exist")
				}
			default:
				fail(i, "read_thoughts without a form")
			}
		case OpGetStructure:
			if maxMain == 0 {
				fail(i, "get_structure before the first thought")
			}
		case OpSessionList:
			lists++
			if st.Operation != "session" || st.Args["operation"] != "list" || st.Args["limit"] != s.ListLimit {
				fail(i, "session list")
			}
		case OpSessionGet:
			gets++
			if st.Operation != "session" || st.Args["operation"] != "get" || maxMain == 0 {
				fail(i, "session get")
			}
		default:
			fail(i, "unknown op")
		}
	}
	if !closed || maxMain != n {
		t.Fatalf("the script does not end with the closing thought %d (last main %d)", n, maxMain)
	}
	if lists > 1 || gets > 1 {
		t.Fatalf("%d session lists, %d gets", lists, gets)
	}
}

func TestScriptsFollowTheLedgerRules(t *testing.T) {
	shapes := map[string]Session{"default": Default().Session}
	busy := Default().Session
	busy.Thoughts = IntRange{1, 30}
	busy.ThinkTime = DurationRange{Min: time.Millisecond, Max: 5 * time.Millisecond}
	busy.Branch, busy.BranchContinue, busy.Revision = 1, 0.5, 1
	busy.ReadThoughts, busy.GetStructure, busy.SessionList, busy.SessionGet = 1, 1, 1, 1
	shapes["everything"] = busy
	quiet := busy
	quiet.Branch, quiet.Revision, quiet.ReadThoughts, quiet.GetStructure, quiet.SessionList, quiet.SessionGet = 0, 0, 0, 0, 0, 0
	shapes["nothing"] = quiet
	for name, s := range shapes {
		t.Run(name, func(t *testing.T) {
			for seed := int64(0); seed < 20; seed++ {
				for vu := range 5 {
					for session := range 5 {
						checkScript(t, s, s.Script(seed, vu, session))
					}
				}
			}
		})
	}
}

func TestScriptWithoutExtras(t *testing.T) {
	s := Default().Session
	s.Thoughts = IntRange{3, 3}
	s.Branch, s.Revision, s.ReadThoughts, s.GetStructure, s.SessionList, s.SessionGet = 0, 0, 0, 0, 0, 0
	var ops []Op
	for _, st := range s.Script(9, 0, 0) {
		ops = append(ops, st.Op)
	}
	want := []Op{OpStartNew, OpCipher, OpThought, OpThought, OpClose}
	if !reflect.DeepEqual(ops, want) {
		t.Errorf("ops %v, want %v", ops, want)
	}
}

func TestOneThoughtSession(t *testing.T) {
	s := Default().Session
	s.Thoughts = IntRange{1, 1}
	s.SessionList, s.SessionGet = 1, 1
	steps := s.Script(1, 0, 0)
	var ops []Op
	for _, st := range steps {
		ops = append(ops, st.Op)
	}
	want := []Op{OpStartNew, OpCipher, OpClose, OpSessionList, OpSessionGet}
	if !reflect.DeepEqual(ops, want) {
		t.Errorf("ops %v, want %v", ops, want)
	}
	if steps[2].Args["thoughtNumber"] != 1 || steps[2].Args["totalThoughts"] != 1 || steps[2].Args["nextThoughtNeeded"] != false {
		t.Errorf("closing thought %v", steps[2].Args)
	}
}

// The mix of a large number of default sessions matches the probabilities.
func TestScriptMixMatchesTheWorkload(t *testing.T) {
	s := Default().Session
	counts := map[Op]float64{}
	var sessions, mainThoughts, nonClosing, bytes, thoughtSteps float64
	var eligible, continued float64 // branch thoughts when a branch existed, and those that continued one
	for vu := range 40 {
		for session := range 50 {
			sessions++
			seen := map[string]bool{}
			for _, st := range s.Script(7, vu, session) {
				counts[st.Op]++
				switch st.Op {
				case OpThought, OpRevision, OpClose:
					mainThoughts++
					if st.Op != OpClose {
						nonClosing++
					}
				case OpBranch:
					id := st.Records.Branch
					if len(seen) > 0 {
						eligible++
						if seen[id] {
							continued++
						}
					}
					seen[id] = true
				}
				if st.RecordsThought() {
					bytes += float64(st.TextBytes)
					thoughtSteps++
				}
			}
		}
	}
	near := func(name string, got, want, tol float64) {
		t.Helper()
		if got < want-tol || got > want+tol {
			t.Errorf("%s: %.4f, want %.4f ± %.4f", name, got, want, tol)
		}
	}
	meanN := float64(s.Thoughts.Min+s.Thoughts.Max) / 2
	near("thoughts per session", mainThoughts/sessions, meanN, 0.3)
	near("text bytes", bytes/thoughtSteps, float64(s.ThoughtBytes.Min+s.ThoughtBytes.Max)/2, 20)
	near("branch thoughts per main-chain thought", counts[OpBranch]/nonClosing, s.Branch, 0.01)
	// Revisions are possible for thoughts 2 … N-1.
	near("revisions per possible revision", counts[OpRevision]/(nonClosing-sessions), s.Revision, 0.01)
	thoughtsBeforeClose := nonClosing + counts[OpBranch]
	near("read_thoughts per thought", counts[OpReadThoughts]/thoughtsBeforeClose, s.ReadThoughts, 0.01)
	near("get_structure per thought", counts[OpGetStructure]/thoughtsBeforeClose, s.GetStructure, 0.01)
	near("session list per session", counts[OpSessionList]/sessions, s.SessionList, 0.02)
	near("session get per session", counts[OpSessionGet]/sessions, s.SessionGet, 0.02)
	near("branch thoughts that continue an existing branch", continued/eligible, s.BranchContinue, 0.05)
	if counts[OpStartNew] != sessions || counts[OpCipher] != sessions || counts[OpClose] != sessions {
		t.Errorf("counts %v for %v sessions", counts, sessions)
	}
}

func TestThinkTimeDoesNotChangeTheCalls(t *testing.T) {
	a := Default().Session
	b := a
	b.ThinkTime = DurationRange{Min: 10 * time.Millisecond, Max: 20 * time.Millisecond}
	sa, sb := a.Script(5, 1, 2), b.Script(5, 1, 2)
	if len(sa) != len(sb) {
		t.Fatalf("%d and %d steps", len(sa), len(sb))
	}
	for i := range sa {
		if sa[i].Think != 0 {
			t.Fatalf("step %d thinks without think time", i)
		}
		if i > 0 && (sb[i].Think < 10*time.Millisecond || sb[i].Think > 20*time.Millisecond) {
			t.Fatalf("step %d thinks %v", i, sb[i].Think)
		}
		sb[i].Think = 0
	}
	if !reflect.DeepEqual(sa, sb) {
		t.Error("think time changed the calls")
	}
}

func TestLongSessionScript(t *testing.T) {
	w := Default()
	tier, _ := w.Tier(LongSession)
	s := w.Session.WithThoughts(tier.Thoughts)
	steps := s.Script(1, 0, 0)
	main := 0
	for _, st := range steps {
		if st.Op == OpThought || st.Op == OpRevision || st.Op == OpClose {
			main++
		}
	}
	if main != 10000 {
		t.Errorf("%d main-chain thoughts, want 10000", main)
	}
	checkScript(t, s, steps)
}

func TestStepArgumentsAndRefs(t *testing.T) {
	st := Step{Operation: "thought", Args: map[string]any{"thoughtNumber": 1}}
	got := st.Arguments()
	if got["operation"] != "thought" || !reflect.DeepEqual(got["args"], st.Args) {
		t.Errorf("arguments %v", got)
	}
	if (ThoughtRef{Number: 3}).String() != "main#3" || (ThoughtRef{Branch: "b1", Number: 4}).String() != "b1#4" {
		t.Error("ref strings")
	}
}
