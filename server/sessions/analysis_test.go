package sessions_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/fixtures"
	"github.com/thoughtbox-bench/tbbench/server/reply"
	"github.com/thoughtbox-bench/tbbench/server/sessions"
	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/memstore"
)

// step is the clock's step between two readings: every thought of a golden
// sequence is recorded 1.5 s after the one before.
const step = 1500 * time.Millisecond

// steppingClock returns a clock that starts at 2026-11-22T08:00:00Z and
// moves on by step at every reading.
func steppingClock() func() time.Time {
	t := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC).Add(-step)
	return func() time.Time { t = t.Add(step); return t }
}

// goldenThought is the part of a fixture's thought args the ledger stores.
type goldenThought struct {
	Thought           string   `json:"thought"`
	ThoughtNumber     int      `json:"thoughtNumber"`
	TotalThoughts     int      `json:"totalThoughts"`
	NextThoughtNeeded bool     `json:"nextThoughtNeeded"`
	IsRevision        *bool    `json:"isRevision"`
	RevisesThought    *int     `json:"revisesThought"`
	BranchFromThought *int     `json:"branchFromThought"`
	BranchID          string   `json:"branchId"`
	SessionTitle      string   `json:"sessionTitle"`
	SessionTags       []string `json:"sessionTags"`
}

// playGolden records the thoughts of a golden sequence (nonce "x") in a new
// session of store, in the fixture's order, and returns the session.
func playGolden(t *testing.T, store storage.Store, name string) *storage.Chain {
	t.Helper()
	f, err := fixtures.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	var c *storage.Chain
	for _, s := range f.Steps {
		if s.Operation != "thought" {
			continue
		}
		var g goldenThought
		if err := json.Unmarshal(fixtures.WithNonce(s.Args, "x"), &g); err != nil {
			t.Fatal(err)
		}
		if c == nil {
			if c, err = store.Create(storage.CreateParams{Title: g.SessionTitle, Tags: g.SessionTags}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.Append(storage.Entry{Thought: g.Thought, ThoughtNumber: g.ThoughtNumber, TotalThoughts: g.TotalThoughts,
			NextThoughtNeeded: g.NextThoughtNeeded, IsRevision: g.IsRevision, RevisesThought: g.RevisesThought,
			BranchFromThought: g.BranchFromThought, BranchID: g.BranchID}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return c
}

// call runs a session sub-operation and decodes its answer into out.
func call(t *testing.T, host *sessions.Host, args map[string]any, out any) reply.Reply {
	t.Helper()
	raw, _ := json.Marshal(args)
	r := host.Call(context.Background(), nil, raw)
	if out != nil && !r.IsError {
		if err := json.Unmarshal([]byte(r.FirstText()), out); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, r.FirstText())
		}
	}
	return r
}

// TestAnalyzeGoldenSequences checks every metric on the golden sequences.
// The expected values are worked out by hand from the definitions, with
// thoughts 1.5 s apart:
//
//   - forward: 3 thoughts, 3 s → 60 per minute; the last one closes.
//   - backward: 5 thoughts recorded 5 down to 1, 6 s → 50 per minute;
//     complete, because the thought recorded last (1) closes, though the
//     highest-numbered one (5) does not.
//   - gaps: 4 thoughts (1, 5, 8, 10), 4.5 s → 4/0.075 = 53.33 per minute.
//   - revision: 5 thoughts, thought 4 revises 2 → revision rate 1/5 = 0.2,
//     linearity 1 - 1/5 = 0.8; 6 s → 50 per minute.
//   - branch: 5 main-chain thoughts and 3 branch thoughts on 2 branches
//     → 8 thoughts, linearity 1 - 3/8 = 0.625, rounded half up 0.63; depth 2;
//     10.5 s → 8/0.175 = 45.714 → 45.71; the main chain goes on (thought 5)
//     after the last branch thought: convergence.
func TestAnalyzeGoldenSequences(t *testing.T) {
	cases := []struct {
		name      string
		structure sessions.Structure
		quality   sessions.Quality
		thoughts  int
		branches  int
		revisions int
		duration  int64
	}{
		{"forward", sessions.Structure{LinearityScore: 1, ThoughtDensity: 60}, sessions.Quality{IsComplete: true}, 3, 0, 0, 3000},
		{"backward", sessions.Structure{LinearityScore: 1, ThoughtDensity: 50}, sessions.Quality{IsComplete: true}, 5, 0, 0, 6000},
		{"gaps", sessions.Structure{LinearityScore: 1, ThoughtDensity: 53.33}, sessions.Quality{IsComplete: true}, 4, 0, 0, 4500},
		{"revision", sessions.Structure{LinearityScore: 0.8, RevisionRate: 0.2, ThoughtDensity: 50}, sessions.Quality{IsComplete: true}, 5, 0, 1, 6000},
		{"branch", sessions.Structure{LinearityScore: 0.63, MaxDepth: 2, ThoughtDensity: 45.71}, sessions.Quality{HasConvergence: true, IsComplete: true}, 8, 2, 0, 10500},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := memstore.New(memstore.WithClock(steppingClock()))
			c := playGolden(t, store, tc.name)
			var got sessions.Analysis
			if r := call(t, sessions.New(store), map[string]any{"operation": "analyze", "sessionId": c.ID()}, &got); r.IsError {
				t.Fatal(r.FirstText())
			}
			m := got.Metadata
			if got.SessionID != c.ID() || m.ThoughtCount != tc.thoughts || m.BranchCount != tc.branches || m.RevisionCount != tc.revisions || m.Duration != tc.duration {
				t.Errorf("metadata %+v, want %d thoughts, %d branches, %d revisions, %d ms", m, tc.thoughts, tc.branches, tc.revisions, tc.duration)
			}
			if got.Structure != tc.structure || got.Quality != tc.quality {
				t.Errorf("structure %+v quality %+v, want %+v %+v", got.Structure, got.Quality, tc.structure, tc.quality)
			}
			if s := c.Session(); m.Title != s.Title || !reflect.DeepEqual(m.Tags, s.Tags) || m.CreatedAt != s.CreatedAt || m.LastUpdatedAt != s.UpdatedAt {
				t.Errorf("metadata %+v does not describe session %+v", m, s)
			}
		})
	}
}

func TestAnalyzeEmptySessionAndUnknownOne(t *testing.T) {
	store := memstore.New()
	c, _ := store.Create(storage.CreateParams{Title: "empty"})
	host := sessions.New(store)
	var got sessions.Analysis
	call(t, host, map[string]any{"operation": "analyze", "sessionId": c.ID()}, &got)
	if got.Structure != (sessions.Structure{LinearityScore: 1}) || got.Quality != (sessions.Quality{}) || got.Metadata.ThoughtCount != 0 {
		t.Errorf("empty session: %+v", got)
	}
	r := call(t, host, map[string]any{"operation": "analyze", "sessionId": "nope"}, nil)
	if !r.IsError || !strings.Contains(r.FirstText(), "nope") {
		t.Errorf("unknown session: %v %s", r.IsError, r.FirstText())
	}
}
