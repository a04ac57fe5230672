package sessions_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/sessions"
	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/memstore"
)

// deep runs deep_analysis with args and decodes a successful answer.
func deep(t *testing.T, host *sessions.Host, args map[string]any) (map[string]json.RawMessage, string, bool) {
	t.Helper()
	raw, _ := json.Marshal(args)
	r := host.DeepAnalysis(raw)
	var out map[string]json.RawMessage
	if !r.IsError {
		if err := json.Unmarshal([]byte(r.FirstText()), &out); err != nil {
			t.Fatal(err)
		}
	}
	return out, r.FirstText(), r.IsError
}

func section[T any](t *testing.T, out map[string]json.RawMessage, key string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(out[key], &v); err != nil {
		t.Fatalf("%s: %v in %s", key, err, out[key])
	}
	return v
}

// TestDeepAnalysisGoldenSequences checks deep_analysis "full" by hand:
//
//   - branch (no tags): 8 thoughts, none a revision, 2 branches; thought
//     lengths 29+27+34+15+14+17+23+6 = 165 code units, 165/8 = 20.625 → 21;
//     complexity 5·8 = 40; highest number 6; breadth main + 2 branches = 3;
//     decision points: the first thought (4) of each branch, forking from 2.
//   - revision (no tags): 5 thoughts, 1 revision; 142/5 = 28.4 → 28;
//     complexity 25; depth 5; breadth 1; one decision point, 4 revising 2.
//   - backward (tags demo, backward): 5 thoughts; 131/5 = 26.2 → 26;
//     complexity 5·5 + 10·2 = 45; depth 5; breadth 1; no decision point.
func TestDeepAnalysisGoldenSequences(t *testing.T) {
	cases := []struct {
		name      string
		patterns  sessions.Patterns
		load      sessions.CognitiveLoad
		decisions []sessions.DecisionPoint
	}{
		{"branch", sessions.Patterns{TotalThoughts: 8, BranchCount: 2, AverageThoughtLength: 21}, sessions.CognitiveLoad{ComplexityScore: 40, DepthIndicator: 6, BreadthIndicator: 3},
			[]sessions.DecisionPoint{{ThoughtNumber: 4, Type: "branch", Reference: 2, BranchID: "option-a"}, {ThoughtNumber: 4, Type: "branch", Reference: 2, BranchID: "option-b"}}},
		{"revision", sessions.Patterns{TotalThoughts: 5, RevisionCount: 1, AverageThoughtLength: 28}, sessions.CognitiveLoad{ComplexityScore: 25, DepthIndicator: 5, BreadthIndicator: 1},
			[]sessions.DecisionPoint{{ThoughtNumber: 4, Type: "revision", Reference: 2}}},
		{"backward", sessions.Patterns{TotalThoughts: 5, AverageThoughtLength: 26}, sessions.CognitiveLoad{ComplexityScore: 45, DepthIndicator: 5, BreadthIndicator: 1},
			[]sessions.DecisionPoint{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := memstore.New(memstore.WithClock(steppingClock()))
			c := playGolden(t, store, tc.name)
			out, text, failed := deep(t, sessions.New(store), map[string]any{"sessionId": c.ID(), "analysisType": "full", "options": map[string]any{"includeTimeline": true}})
			if failed {
				t.Fatal(text)
			}
			if p := section[sessions.Patterns](t, out, "patterns"); p != tc.patterns {
				t.Errorf("patterns %+v, want %+v", p, tc.patterns)
			}
			if l := section[sessions.CognitiveLoad](t, out, "cognitiveLoad"); l != tc.load {
				t.Errorf("cognitive load %+v, want %+v", l, tc.load)
			}
			if d := section[[]sessions.DecisionPoint](t, out, "decisionPoints"); !reflect.DeepEqual(d, tc.decisions) {
				t.Errorf("decision points %+v, want %+v", d, tc.decisions)
			}
			tl := section[sessions.Timeline](t, out, "timeline")
			if want := fmt.Sprintf("~%d minutes", 2*tc.patterns.TotalThoughts); tl.DurationEstimate != want || tl.CreatedAt != c.Session().CreatedAt || tl.DurationMs != int64(tc.patterns.TotalThoughts-1)*1500 {
				t.Errorf("timeline %+v", tl)
			}
			if section[string](t, out, "sessionId") != c.ID() || section[string](t, out, "analysisType") != "full" {
				t.Errorf("header %s", text)
			}
		})
	}
}

func TestDeepAnalysisSectionsAndRefusals(t *testing.T) {
	store := memstore.New(memstore.WithClock(steppingClock()))
	c := playGolden(t, store, "revision")
	host := sessions.New(store)
	out, _, _ := deep(t, host, map[string]any{"sessionId": c.ID(), "analysisType": "cognitive_load"})
	keys := []string{}
	for k := range out {
		keys = append(keys, k)
	}
	if len(out) != 4 || out["cognitiveLoad"] == nil || out["timeline"] != nil {
		t.Errorf("cognitive_load answers %v", keys)
	}
	for _, tc := range []struct {
		args  map[string]any
		names []string
	}{
		{map[string]any{"sessionId": c.ID()}, []string{"analysisType"}},
		{map[string]any{"analysisType": "full"}, []string{"sessionId"}},
		{map[string]any{"sessionId": c.ID(), "analysisType": "evolution"}, []string{"evolution", "patterns", "cognitive_load", "decision_points", "full"}},
		{map[string]any{"sessionId": "missing-1", "analysisType": "full"}, []string{"missing-1"}},
		{map[string]any{"sessionId": c.ID(), "analysisType": "full", "options": map[string]any{"includeTimeline": "yes"}}, []string{"includeTimeline"}},
	} {
		_, text, failed := deep(t, host, tc.args)
		if !failed {
			t.Errorf("%v succeeded", tc.args)
		}
		for _, n := range tc.names {
			if !strings.Contains(text, n) {
				t.Errorf("%v: error does not name %q: %s", tc.args, n, text)
			}
		}
	}
}

type learningsAnswer struct {
	SessionID      string              `json:"sessionId"`
	ExtractedCount int                 `json:"extractedCount"`
	Note           string              `json:"note"`
	Learnings      []sessions.Learning `json:"learnings"`
}

// TestExtractLearnings checks the three kinds on the revision sequence: a
// decision at thought 2 gives a pattern of thought 2; a revision moment at
// thought 4 (which revises 2) an anti-pattern of thoughts 4 and 2; the
// signal carries analyze's metrics (5 thoughts, 1 revision, 6 s, linearity
// 0.8) and "success", since the session closed.
func TestExtractLearnings(t *testing.T) {
	store := memstore.New(memstore.WithClock(steppingClock()))
	c := playGolden(t, store, "revision")
	host := sessions.New(store)
	var got learningsAnswer
	r := call(t, host, map[string]any{"operation": "extract_learnings", "sessionId": c.ID(),
		"keyMoments":  []map[string]any{{"thoughtNumber": 2, "type": "decision", "significance": 8, "summary": "TTL matters"}, {"thoughtNumber": 4, "type": "revision"}},
		"targetTypes": []string{"pattern", "anti-pattern", "signal"}}, &got)
	if r.IsError {
		t.Fatal(r.FirstText())
	}
	if got.ExtractedCount != 3 || len(got.Learnings) != 3 || got.Note != "" {
		t.Fatalf("%+v", got)
	}
	p, anti, sig := got.Learnings[0], got.Learnings[1], got.Learnings[2]
	prefix := c.ID()[:8]
	if p.Type != "pattern" || !reflect.DeepEqual(p.Metadata.SourceThoughts, []int{2}) || p.TargetPath != ".claude/rules/evolution/experiments/"+prefix+"-thought-2.md" ||
		!strings.Contains(p.Content, "Evidence: TTL is 1h x") || !strings.Contains(p.Content, "8/10") || p.Metadata.BehaviorCharacteristics == nil {
		t.Errorf("pattern %+v", p)
	}
	if anti.Type != "anti-pattern" || !reflect.DeepEqual(anti.Metadata.SourceThoughts, []int{4, 2}) || anti.TargetPath != ".claude/rules/evolution/experiments/anti-"+prefix+"-thought-2.md" {
		t.Errorf("anti-pattern %+v", anti)
	}
	var line map[string]any
	if err := json.Unmarshal([]byte(sig.Content), &line); err != nil || sig.Type != "signal" || sig.TargetPath != ".claude/rules/evolution/signals.jsonl" {
		t.Fatalf("signal %+v: %v", sig, err)
	}
	wantMetrics := map[string]any{"thoughts": 5.0, "branches": 0.0, "revisions": 1.0, "duration": 6000.0, "linearityScore": 0.8, "critiqueUsage": 0.0}
	if line["signal"] != "success" || line["session"] != c.ID() || !reflect.DeepEqual(line["metrics"], wantMetrics) || line["timestamp"] != sig.Metadata.ExtractedAt {
		t.Errorf("signal line %v", line)
	}

	// Only the signal by default; a note when patterns were asked for
	// without key moments.
	call(t, host, map[string]any{"operation": "extract_learnings", "sessionId": c.ID()}, &got)
	if got.ExtractedCount != 1 || got.Learnings[0].Type != "signal" || got.Note != "" {
		t.Errorf("default: %+v", got)
	}
	call(t, host, map[string]any{"operation": "extract_learnings", "sessionId": c.ID(), "targetTypes": []string{"pattern"}}, &got)
	if got.ExtractedCount != 0 || got.Note == "" {
		t.Errorf("patterns without moments: %+v", got)
	}

	for _, tc := range []struct {
		args  map[string]any
		names []string
	}{
		{map[string]any{"keyMoments": []map[string]any{{"thoughtNumber": 9, "type": "decision"}}}, []string{"keyMoments[0].thoughtNumber", "9"}},
		{map[string]any{"keyMoments": []map[string]any{{"thoughtNumber": 2, "type": "guess"}}}, []string{"keyMoments[0].type", "decision", "branch"}},
		{map[string]any{"keyMoments": []map[string]any{{"thoughtNumber": 2, "type": "insight", "significance": 11}}}, []string{"keyMoments[0].significance"}},
		{map[string]any{"targetTypes": []string{"lesson"}}, []string{"targetTypes[0]", "lesson", "anti-pattern"}},
	} {
		tc.args["operation"], tc.args["sessionId"] = "extract_learnings", c.ID()
		r := call(t, host, tc.args, nil)
		for _, n := range tc.names {
			if !r.IsError || !strings.Contains(r.FirstText(), n) {
				t.Errorf("%v: %v %s, want an error naming %q", tc.args, r.IsError, r.FirstText(), n)
			}
		}
	}
}

// TestExtractLearningsBranchMoment: a key moment on a branch names its
// branch; without branchId the number is looked up on the main chain.
func TestExtractLearningsBranchMoment(t *testing.T) {
	store := memstore.New(memstore.WithClock(steppingClock()))
	c := playGolden(t, store, "branch")
	var got learningsAnswer
	r := call(t, sessions.New(store), map[string]any{"operation": "extract_learnings", "sessionId": c.ID(), "targetTypes": []string{"pattern"},
		"keyMoments": []map[string]any{{"thoughtNumber": 5, "type": "pivot", "branchId": "option-a"}, {"thoughtNumber": 5, "type": "insight"}}}, &got)
	if r.IsError || got.ExtractedCount != 2 {
		t.Fatalf("%s", r.FirstText())
	}
	if !strings.Contains(got.Learnings[0].Content, "Option A detail") || !strings.Contains(got.Learnings[0].TargetPath, "-option-a-thought-5.md") ||
		!strings.Contains(got.Learnings[1].Content, "Synthesis: choose SQL") {
		t.Errorf("%+v", got.Learnings)
	}
}

func TestDiscovery(t *testing.T) {
	host := sessions.New(memstore.New())
	var got map[string]any
	if r := call(t, host, map[string]any{"operation": "discovery", "action": "list"}, &got); r.IsError || got["success"] != true ||
		!reflect.DeepEqual(got["discoveredTools"], []any{}) || len(r.Blocks) != 2 {
		t.Errorf("list: %s", r.FirstText())
	}
	for _, tc := range []struct {
		args  map[string]any
		names []string
	}{
		{map[string]any{"action": "hide"}, []string{"toolName"}},
		{map[string]any{"action": "show", "toolName": "ghost"}, []string{"ghost"}},
		{map[string]any{"action": "wave"}, []string{"wave", "list", "hide", "show"}},
		{map[string]any{}, []string{"action"}},
	} {
		tc.args["operation"] = "discovery"
		r := call(t, host, tc.args, nil)
		for _, n := range tc.names {
			if !r.IsError || !strings.Contains(r.FirstText(), n) {
				t.Errorf("%v: %s, want an error naming %q", tc.args, r.FirstText(), n)
			}
		}
	}
}

type page struct {
	Sessions   []storage.Session `json:"sessions"`
	Count      int               `json:"count"`
	HasMore    bool              `json:"hasMore"`
	NextCursor string            `json:"nextCursor"`
	Query      string            `json:"query"`
}

func ids(p page) []string {
	var out []string
	for _, s := range p.Sessions {
		out = append(out, s.Title)
	}
	return out
}

func TestSearch(t *testing.T) {
	store := memstore.New(memstore.WithClock(steppingClock()))
	for _, s := range []struct {
		title string
		tags  []string
	}{{"Cache design", nil}, {"Queue sizing", []string{"cache-tuning"}}, {"Unrelated", []string{"misc"}}, {"Größe der Caches", nil}} {
		c, _ := store.Create(storage.CreateParams{Title: s.title, Tags: s.tags})
		if _, err := c.Append(storage.Entry{Thought: "t", NextThoughtNeeded: true}); err != nil {
			t.Fatal(err)
		}
	}
	host := sessions.New(store)
	var got page
	call(t, host, map[string]any{"operation": "search", "query": "CACHE"}, &got)
	if want := []string{"Größe der Caches", "Queue sizing", "Cache design"}; !reflect.DeepEqual(ids(got), want) || got.Count != 3 || got.HasMore || got.Query != "CACHE" {
		t.Errorf("CACHE found %v (%+v), want %v newest first", ids(got), got, want)
	}
	call(t, host, map[string]any{"operation": "search", "query": "cache", "limit": 2}, &got)
	if got.Count != 2 || !got.HasMore {
		t.Errorf("limit 2: %+v", got)
	}
	call(t, host, map[string]any{"operation": "search", "query": "GRÖSSE"}, &got)
	if got.Count != 0 {
		t.Errorf("ß is not SS under simple case folding: %v", ids(got))
	}
	// Any size and character set: nothing matches, and the answer stays small.
	huge := strings.Repeat("\x00\u202e%_*.?[(\\'\"🙂", 100000)
	r := call(t, host, map[string]any{"operation": "search", "query": huge}, &got)
	if r.IsError || got.Count != 0 || len(r.FirstText()) > 1000 {
		t.Errorf("huge query: error %v, %d sessions, %d bytes", r.IsError, got.Count, len(r.FirstText()))
	}
	for _, args := range []map[string]any{{}, {"query": 3}, {"query": "x", "limit": 0}, {"query": "x", "limit": 101}} {
		args["operation"] = "search"
		if r := call(t, host, args, nil); !r.IsError {
			t.Errorf("%v accepted", args)
		}
	}
}

// TestListCursor pages through sessions with cursors; a session updated
// between two pages moves ahead and is neither repeated nor does it push
// another one off; cursors that are not the server's are refused.
func TestListCursor(t *testing.T) {
	store := memstore.New(memstore.WithClock(steppingClock()))
	var chains []*storage.Chain
	for i := 0; i < 5; i++ {
		c, _ := store.Create(storage.CreateParams{Title: fmt.Sprint("s", i), Tags: []string{"t"}})
		if _, err := c.Append(storage.Entry{Thought: "t", NextThoughtNeeded: true}); err != nil {
			t.Fatal(err)
		}
		chains = append(chains, c)
	}
	host := sessions.New(store)
	var p1, p2 page
	call(t, host, map[string]any{"operation": "list", "limit": 2, "tags": []string{"t"}}, &p1)
	if !reflect.DeepEqual(ids(p1), []string{"s4", "s3"}) || !p1.HasMore || p1.NextCursor == "" {
		t.Fatalf("page 1 %+v", p1)
	}
	// s4 (already listed) and s0 (not yet) are updated between the pages.
	for _, c := range []*storage.Chain{chains[4], chains[0]} {
		if _, err := c.Append(storage.Entry{Thought: "again", NextThoughtNeeded: true}); err != nil {
			t.Fatal(err)
		}
	}
	call(t, host, map[string]any{"operation": "list", "limit": 2, "tags": []string{"t"}, "cursor": p1.NextCursor}, &p2)
	// s0 moved ahead of the cursor: the listing ends with s1.
	if !reflect.DeepEqual(ids(p2), []string{"s2", "s1"}) || p2.HasMore || p2.NextCursor != "" {
		t.Fatalf("page 2 %+v", p2)
	}
	tampered := []byte(p1.NextCursor)
	tampered[3] ^= 1
	for _, args := range []map[string]any{
		{"cursor": string(tampered), "tags": []string{"t"}},
		{"cursor": "eyJ1IjoiMjAyNiIsImkiOiJ4In0.AAAAAAAAAAAAAAAAAAAAAA", "tags": []string{"t"}},
		{"cursor": "not a cursor"},
		{"cursor": sessions.New(store).ForeignCursorForTest(), "tags": []string{"t"}},
		{"cursor": p1.NextCursor},
		{"cursor": p1.NextCursor, "tags": []string{"t"}, "offset": 2},
	} {
		args["operation"] = "list"
		if r := call(t, host, args, nil); !r.IsError || !strings.Contains(r.FirstText(), "cursor") {
			t.Errorf("%v: %s, want a refusal naming the cursor", args, r.FirstText())
		}
	}
}

// TestListLimit checks D30: limit is 1 to 100, 20 when left out, and a
// value outside the range is refused naming it, never clamped.
func TestListLimit(t *testing.T) {
	store := memstore.New(memstore.WithClock(steppingClock()))
	for i := 0; i < 21; i++ {
		c, _ := store.Create(storage.CreateParams{Title: fmt.Sprint("s", i)})
		if _, err := c.Append(storage.Entry{Thought: "t", NextThoughtNeeded: true}); err != nil {
			t.Fatal(err)
		}
	}
	host := sessions.New(store)
	for _, c := range []struct {
		limit any
		want  int
		more  bool
	}{{nil, 20, true}, {1, 1, true}, {21, 21, false}, {100, 21, false}} {
		args := map[string]any{"operation": "list"}
		if c.limit != nil {
			args["limit"] = c.limit
		}
		var got page
		if r := call(t, host, args, &got); r.IsError || got.Count != c.want || len(got.Sessions) != c.want || got.HasMore != c.more {
			t.Errorf("limit %v: %d sessions, hasMore %v (error %v), want %d, %v", c.limit, len(got.Sessions), got.HasMore, r.IsError, c.want, c.more)
		}
	}
	for _, limit := range []any{0, 101, 150, 1000, 2.5, "20"} {
		if r := call(t, host, map[string]any{"operation": "list", "limit": limit}, nil); !r.IsError ||
			!strings.Contains(r.FirstText(), "limit") || !strings.Contains(r.FirstText(), "100") {
			t.Errorf("limit %v: %s, want a refusal naming limit and its range", limit, r.FirstText())
		}
	}
}
