package storage_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// tagPool is the tags the registry tests give sessions.
var tagPool = []string{"project:a", "project:b", "task:x", "task:y", "aspect:z", "other"}

// someTags returns 0 to 3 tags of tagPool.
func someTags(rng *rand.Rand) []string {
	var tags []string
	for _, t := range tagPool {
		if rng.IntN(4) == 0 && len(tags) < 3 {
			tags = append(tags, t)
		}
	}
	return tags
}

// session returns session i with tags, updated at one of a few times (so
// that ties are common: registration order breaks them).
func session(i int, tags []string, rng *rand.Rand) storage.Session {
	return storage.Session{ID: fmt.Sprintf("s%04d", i), Title: fmt.Sprintf("title %d", i), Tags: tags,
		UpdatedAt: fmt.Sprintf("2026-11-27T00:00:%02dZ", rng.IntN(5))}
}

// scanned is List's answer worked out the long way: every chain's session
// in registration order, filtered, ordered newest first (stable).
func scanned(chains []*storage.Chain, f storage.Filter) []string {
	var out []storage.Session
	for _, c := range chains {
		s := c.Session()
		if len(f.AnyTags) > 0 && !slices.ContainsFunc(f.AnyTags, func(t string) bool { return slices.Contains(s.Tags, t) }) {
			continue
		}
		if f.Search != "" && !strings.Contains(strings.ToLower(s.Title+" "+strings.Join(s.Tags, " ")), strings.ToLower(f.Search)) {
			continue
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b storage.Session) int { return strings.Compare(b.UpdatedAt, a.UpdatedAt) })
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return sessionIDs(out)
}

// listUntilDone calls list again and again until wg's goroutines are
// done, and once more after.
func listUntilDone(wg *sync.WaitGroup, list func()) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for {
		select {
		case <-done:
			list()
			return
		default:
		}
		list()
	}
}

// checkLists compares each List of filters with a scan of chains.
func checkLists(t *testing.T, reg *storage.Registry, chains []*storage.Chain, filters []storage.Filter, when string) {
	t.Helper()
	for _, f := range filters {
		if got, want := sessionIDs(reg.List(f)), scanned(chains, f); !slices.Equal(got, want) {
			t.Fatalf("%s: List(%+v) = %v, a scan of every session gives %v", when, f, got, want)
		}
	}
}

func sessionIDs(ss []storage.Session) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.ID
	}
	return out
}

// TestListByTagsFindsTagsGivenAfterRegistration registers sessions, then
// changes their tags every way a backend does (SetMetadata, SetSummary,
// Fill), some before registration, and compares every List by tags with
// the answer of a scan of all sessions.
func TestListByTagsFindsTagsGivenAfterRegistration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	reg := storage.NewRegistry()
	var chains []*storage.Chain
	for i := range 300 {
		c := storage.NewChain(session(i, someTags(rng), rng), nil, nil)
		if i%3 == 0 { // tagged again before it is registered
			c.SetMetadata(session(i, someTags(rng), rng))
		}
		reg.Add(c)
		chains = append(chains, c)
	}
	filters := []storage.Filter{{}, {Limit: 5}, {Limit: 1}, {Limit: 61}, {Limit: 299}, {Limit: 300}, {Limit: 1000},
		{Search: "TITLE 1"}, {Search: "title 1", Limit: 3}}
	for _, t := range tagPool {
		filters = append(filters, storage.Filter{AnyTags: []string{t}}, storage.Filter{AnyTags: []string{t}, Limit: 5})
	}
	filters = append(filters, storage.Filter{AnyTags: []string{"project:a", "task:x", "aspect:z"}},
		storage.Filter{AnyTags: []string{"project:b", "other"}, Search: "title 2"}, storage.Filter{AnyTags: []string{"never"}})
	check := func(round string) { t.Helper(); checkLists(t, reg, chains, filters, round) }
	check("as registered")
	for round := range 4 {
		for i, c := range chains {
			switch rng.IntN(4) {
			case 0:
				c.SetMetadata(session(i, someTags(rng), rng))
			case 1:
				c.SetSummary(session(i, someTags(rng), rng))
			case 2:
				c.Fill(storage.NewChain(session(i, someTags(rng), rng), nil, nil))
			}
		}
		check(fmt.Sprintf("after change %d", round+1))
	}
}

// TestListByTagsRacesTagChanges lists by a tag while other goroutines
// register sessions and give and take that tag: a session that carries it
// from before the List to after it is always found (run with -race).
func TestListByTagsRacesTagChanges(t *testing.T) {
	reg := storage.NewRegistry()
	steady := storage.NewChain(storage.Session{ID: "steady", Tags: []string{"t"}, UpdatedAt: "2026-11-27T00:00:00Z"}, nil, nil)
	reg.Add(steady)
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for i := range 300 {
				c := storage.NewChain(storage.Session{ID: fmt.Sprintf("g%d-%d", g, i)}, nil, nil)
				added := make(chan struct{})
				go func() { reg.Add(c); close(added) }()
				tags := []string{}
				if rng.IntN(2) == 0 {
					tags = []string{"t"}
				}
				c.SetMetadata(storage.Session{Tags: tags, UpdatedAt: "2026-11-27T00:00:00Z"})
				steady.SetMetadata(storage.Session{Tags: []string{"u", "t"}, UpdatedAt: "2026-11-27T00:00:00Z"})
				<-added
			}
		})
	}
	listUntilDone(&wg, func() {
		if !slices.Contains(sessionIDs(reg.List(storage.Filter{AnyTags: []string{"t"}})), "steady") {
			t.Fatal("a session that carried the tag all along was not listed")
		}
	})
	// Every registered chain that carries the tag now is listed.
	var want []string
	for _, c := range reg.All() {
		if slices.Contains(c.Session().Tags, "t") {
			want = append(want, c.ID())
		}
	}
	got := sessionIDs(reg.List(storage.Filter{AnyTags: []string{"t"}}))
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("listed %d sessions by tag, %d carry it", len(got), len(want))
	}
}

// BenchmarkListPage is session list's first page (limit 20, and one more to
// tell whether there are more) among 20,000 sessions.
func BenchmarkListPage(b *testing.B) {
	reg := storage.NewRegistry()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		reg.Add(storage.NewChain(session(i, nil, rng), nil, nil))
	}
	for b.Loop() {
		if len(reg.List(storage.Filter{Limit: 21})) != 21 {
			b.Fatal("not a page of 21")
		}
	}
}

// BenchmarkListByAbsentTag is start_new's List among 20,000 sessions that
// carry none of its scope's tags.
func BenchmarkListByAbsentTag(b *testing.B) {
	reg := storage.NewRegistry()
	for i := range 20000 {
		reg.Add(storage.NewChain(storage.Session{ID: fmt.Sprintf("s%d", i), Tags: []string{"topic:x"}}, nil, nil))
	}
	f := storage.Filter{AnyTags: []string{"project:tbbench-load"}}
	for b.Loop() {
		if len(reg.List(f)) != 0 {
			b.Fatal("listed a session without the tag")
		}
	}
}

// TestListPageFollowsEveryUpdate checks List's pages without filters (read
// from the registry's order of updates) against a scan of every session,
// after each way a session's update time changes: a thought appended (at
// the present, or at a time earlier than others), a node loaded, and the
// metadata, summary or whole chain replaced; often enough that the order's
// cleared entries are compacted many times over.
func TestListPageFollowsEveryUpdate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// Each chain's clock: mostly ahead of the others, sometimes behind.
	base := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	tick := 0
	clock := func() time.Time {
		tick++
		if rng.IntN(8) == 0 {
			return base.Add(time.Duration(rng.IntN(tick)) * time.Millisecond)
		}
		return base.Add(time.Duration(tick) * time.Millisecond)
	}
	reg := storage.NewRegistry()
	var chains []*storage.Chain
	for i := range 200 {
		c := storage.NewChain(session(i, nil, rng), nil, clock)
		reg.Add(c)
		chains = append(chains, c)
	}
	pages := []storage.Filter{{Limit: 1}, {Limit: 21}, {Limit: 199}, {Limit: 200}, {Limit: 500}}
	check := func(step string) { t.Helper(); checkLists(t, reg, chains, pages, step) }
	check("as registered")
	for step := range 3000 {
		i := rng.IntN(len(chains))
		c := chains[i]
		switch k := rng.IntN(10); {
		case k < 6:
			if _, err := c.Append(storage.Entry{Thought: "t", NextThoughtNeeded: true}); err != nil {
				t.Fatal(err)
			}
		case k == 6:
			n := storage.Node{ID: fmt.Sprintf("loaded-%d", step)}
			n.Data.Timestamp = storage.FormatTime(clock())
			c.Load(n)
		case k == 7:
			c.SetMetadata(session(i, nil, rng))
		case k == 8:
			c.SetSummary(session(i, nil, rng))
		default:
			c.Fill(storage.NewChain(session(i, nil, rng), nil, clock))
		}
		if step%50 == 0 {
			check(fmt.Sprintf("step %d", step))
		}
	}
	check("at the end")
}

// TestListPageRacesUpdates lists pages while other goroutines register
// sessions and append to them (run with -race); once they are done, a page
// is a scan's.
func TestListPageRacesUpdates(t *testing.T) {
	reg := storage.NewRegistry()
	var mu sync.Mutex
	var chains []*storage.Chain
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() {
			for i := range 200 {
				c := storage.NewChain(storage.Session{ID: fmt.Sprintf("g%d-%d", g, i), UpdatedAt: "2026-11-27T00:00:00Z"}, nil, nil)
				appended := make(chan struct{})
				go func() {
					defer close(appended)
					for range 3 {
						if _, err := c.Append(storage.Entry{Thought: "t", NextThoughtNeeded: true}); err != nil {
							t.Error(err)
						}
					}
				}()
				reg.Add(c)
				<-appended
				mu.Lock()
				chains = append(chains, c)
				mu.Unlock()
			}
		})
	}
	listUntilDone(&wg, func() {
		if page := reg.List(storage.Filter{Limit: 21}); len(page) > 21 {
			t.Fatalf("a page of %d sessions", len(page))
		}
	})
	if len(reg.All()) != len(chains) {
		t.Fatalf("%d chains registered, %d made", len(reg.All()), len(chains))
	}
	for _, f := range []storage.Filter{{Limit: 21}, {Limit: 600}} {
		// In registration order, which breaks ties of update time.
		if got, want := sessionIDs(reg.List(f)), scanned(reg.All(), f); !slices.Equal(got, want) {
			t.Fatalf("List(%+v) = %v, a scan of every session gives %v", f, got, want)
		}
	}
}
