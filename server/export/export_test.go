package export_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/export"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

func intp(n int) *int    { return &n }
func boolp(b bool) *bool { return &b }

func chain(t *testing.T, entries ...storage.Entry) *storage.Chain {
	t.Helper()
	c := storage.NewChain(storage.Session{ID: "s"}, nil, nil)
	for _, e := range entries {
		if _, err := c.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func rev(n, of int) storage.Entry {
	return storage.Entry{Thought: "r", ThoughtNumber: n, IsRevision: boolp(true), RevisesThought: intp(of)}
}

// TestRevisionChains uses the "Zeta backward" shape of the spec: 5, 3, 6,
// then 7 revises 5, 8 revises 7, 20 revises 5, 21 revises 3.
func TestRevisionChains(t *testing.T) {
	c := chain(t, storage.Entry{Thought: "a", ThoughtNumber: 5}, storage.Entry{Thought: "b", ThoughtNumber: 3},
		storage.Entry{Thought: "c", ThoughtNumber: 6}, rev(7, 5), rev(8, 7), rev(20, 5), rev(21, 3))
	e := export.Build(c.Session(), c.Nodes(), time.Now())
	meta := map[int]export.RevisionMetadata{}
	for _, n := range e.Nodes {
		meta[n.Data.ThoughtNumber] = n.RevisionMetadata
	}
	type want struct {
		depth     int
		chain     string
		revisedBy string
	}
	for n, w := range map[int]want{
		5: {0, "chain-s-5", "[7,20]"}, 3: {0, "chain-s-3", "[21]"}, 7: {1, "chain-s-5", "[8]"},
		8: {2, "chain-s-5", "[]"}, 20: {1, "chain-s-5", "[]"}, 21: {1, "chain-s-3", "[]"},
	} {
		m := meta[n]
		rb, _ := json.Marshal(m.RevisedBy)
		if m.RevisionDepth != w.depth || m.RevisionChainID != w.chain || string(rb) != w.revisedBy {
			t.Errorf("thought %d: depth %d chain %s revisedBy %s, want %+v", n, m.RevisionDepth, m.RevisionChainID, rb, w)
		}
	}
	ra := e.RevisionAnalysis
	// |7-5|, |8-7|, |20-5|, |21-3| → 36/4 = 9; 4 of 7 nodes → 57.1%.
	if ra.TotalRevisions != 4 || ra.MostRevisedThought == nil || ra.MostRevisedThought.ThoughtNumber != 5 ||
		ra.MostRevisedThought.RevisionCount != 2 || ra.AvgTemporalDistance != 9 || ra.RevisionDensity != 57.1 {
		t.Errorf("analysis %+v %+v", ra, ra.MostRevisedThought)
	}
}

func TestBranchRevisionsAndSharedNumbers(t *testing.T) {
	c := chain(t, storage.Entry{Thought: "1"}, storage.Entry{Thought: "2"},
		storage.Entry{Thought: "a3", BranchID: "alt", BranchFromThought: intp(1)},
		storage.Entry{Thought: "a4", BranchID: "alt", BranchFromThought: intp(1), IsRevision: boolp(true), RevisesThought: intp(3)},
		storage.Entry{Thought: "3"})
	e := export.Build(c.Session(), c.Nodes(), time.Now())
	for _, n := range e.Nodes {
		switch n.ID {
		case "s:alt:4":
			if n.RevisionMetadata.RevisesThought == nil || *n.RevisionMetadata.RevisesThought != 3 || n.RevisionMetadata.RevisionChainID != "chain-s-alt-3" {
				t.Errorf("branch revision metadata %+v", n.RevisionMetadata)
			}
		case "s:3":
			// Main 3 shares its number with alt:3 but keeps its own metadata.
			if n.RevisionMetadata.IsRevision || len(n.RevisionMetadata.RevisedBy) != 0 || n.RevisionMetadata.RevisionChainID != "chain-s-3" {
				t.Errorf("main 3 metadata %+v", n.RevisionMetadata)
			}
		case "s:alt:3":
			if len(n.RevisionMetadata.RevisedBy) != 1 {
				t.Errorf("alt:3 revisedBy %v", n.RevisionMetadata.RevisedBy)
			}
		}
	}
	if e.RevisionAnalysis.RevisionDensity != 20 {
		t.Errorf("density %v", e.RevisionAnalysis.RevisionDensity)
	}
}

// TestCycleInStoredDataDoesNotFailExport feeds hand-edited nodes that revise
// each other: the chain can not produce them, but an export must survive.
func TestCycleInStoredDataDoesNotFailExport(t *testing.T) {
	a, b := "s:2", "s:1"
	nodes := []storage.Node{
		{ID: "s:1", Data: storage.ThoughtData{ThoughtNumber: 1}, Next: []string{}, RevisesNode: &a},
		{ID: "s:2", Data: storage.ThoughtData{ThoughtNumber: 2}, Next: []string{}, RevisesNode: &b},
	}
	e := export.Build(storage.Session{ID: "s"}, nodes, time.Now())
	if e.Nodes[0].RevisionMetadata.RevisionDepth != 2 || e.RevisionAnalysis.TotalRevisions != 2 {
		t.Errorf("cycle: %+v %+v", e.Nodes[0].RevisionMetadata, e.RevisionAnalysis)
	}
}

func TestWriterNamesAndWritesFiles(t *testing.T) {
	dir := t.TempDir()
	c := chain(t, storage.Entry{Thought: "x"})
	e := export.Build(c.Session(), c.Nodes(), time.Date(2026, 11, 22, 7, 52, 18, 877e6, time.UTC))
	path, err := export.Writer{Dir: filepath.Join(dir, "nested")}.Write(e)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "s-2026-11-22T07-52-18-877Z.json" {
		t.Errorf("file name %s", path)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), "{\n  \"version\": \"1.0\",\n  \"session\": {") || strings.HasSuffix(string(data), "\n") {
		t.Errorf("file content starts %.40q", data)
	}
}
