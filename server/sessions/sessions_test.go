package sessions_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/export"
	"github.com/thoughtbox-bench/tbbench/server/sessions"
	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/memstore"
)

func TestParseAnchors(t *testing.T) {
	got := sessions.ParseAnchors("see @auth-design:S3 and @db_v2:S9-S7, not @x:Q1")
	if len(got) != 2 || got[0].Keyword != "auth-design" || got[0].ThoughtRef != "S3" || !slices.Equal(got[0].ThoughtNumbers, []int{3}) {
		t.Fatalf("%+v", got)
	}
	if !slices.Equal(got[1].ThoughtNumbers, []int{7, 8, 9}) || got[1].Raw != "@db_v2:S9-S7" {
		t.Errorf("range anchor %+v", got[1])
	}
}

func TestCrossReferences(t *testing.T) {
	store := memstore.New()
	mk := func(title string, tags ...string) *storage.Chain {
		c, _ := store.Create(storage.CreateParams{Title: title, Tags: tags})
		for i := 0; i < 3; i++ {
			if _, err := c.Append(storage.Entry{Thought: "t"}); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	beta := mk("Beta session", "beta")
	mk("Gamma session probe")
	src := mk("Source")
	if _, err := src.Append(storage.Entry{Thought: "refs @beta:S2 @session:S1 @nothing-here:S1"}); err != nil {
		t.Fatal(err)
	}
	e := export.Build(src.Session(), src.Nodes(), time.Now())
	refs := sessions.CrossReferences(store, e.Nodes)
	if refs.AnchorsFound != 1 || refs.Resolved != 1 || refs.Ambiguous != 1 || refs.Unresolved != 1 {
		t.Fatalf("counts %+v", refs)
	}
	a := refs.Details[0].Anchors
	if a[0].Status != "resolved" || a[0].Selected.SessionID != beta.ID() || len(a[0].Selected.Thoughts) != 1 || a[0].Candidates[0].MatchReason != "tag" {
		t.Errorf("tag anchor %+v", a[0])
	}
	if a[1].Status != "ambiguous" || len(a[1].Candidates) != 2 || a[2].Status != "unresolved" {
		t.Errorf("title/unresolved anchors %+v %+v", a[1], a[2])
	}
}

func TestMarkdownAndCipher(t *testing.T) {
	c := storage.NewChain(storage.Session{ID: "s", Title: "Probe", Tags: []string{"a", "b"}, CreatedAt: "2026-11-22T08:00:00.000Z"}, nil, nil)
	two := 2
	yes := true
	for _, e := range []storage.Entry{
		{Thought: "Hypothesis: we assume the cache is stale"},
		{Thought: "Evidence: we found stale entries\nin the log"},
		{Thought: "Revised: " + strings.Repeat("x", 200), IsRevision: &yes, RevisesThought: &two},
		{Thought: "Refers to two", RevisesThought: &two},
	} {
		if _, err := c.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	md := sessions.Markdown(c.Session(), c.Main(), true)
	for _, want := range []string{"# Probe\n\n**Tags:** a, b\n**Created:** 2026-11-22T08:00:00.000Z\n**Thoughts:** 4\n\n---\n\n## Main Thread\n",
		"### Thought 1/1\n\nHypothesis: we assume the cache is stale\n", "### Thought 3/3 [R2]\n", "### Thought 4/4\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	ci := strings.Split(sessions.Cipher(c.Session(), c.Main(), true), "\n")
	if ci[0] != "# Probe" || ci[1] != "T:a,b N:4" || ci[3] != "[1/1] H:Hypothesis: we assume the cache is stale" ||
		ci[4] != "[2/2] E:Evidence: we found stale entries in the log" || !strings.HasPrefix(ci[5], "[3/3] R2 ") || !strings.HasSuffix(ci[5], "...") ||
		ci[6] != "[4/4] Refers to two" {
		t.Errorf("cipher:\n%s", strings.Join(ci, "\n"))
	}
	if bare := sessions.Cipher(c.Session(), c.Main(), false); strings.HasPrefix(bare, "#") {
		t.Errorf("cipher without metadata starts with the title")
	}
}
