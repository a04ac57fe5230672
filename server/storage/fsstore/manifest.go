package fsstore

import (
	"encoding/json"
	"slices"
	"sort"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// manifestVersion is the schema version written into every manifest.
const manifestVersion = "1.0.0"

// manifest is the on-disk manifest.json of a session, in the original
// server's layout.
type manifest struct {
	ID           string           `json:"id"`
	Version      string           `json:"version"`
	ThoughtFiles []string         `json:"thoughtFiles"`
	BranchFiles  branchFiles      `json:"branchFiles"`
	Metadata     manifestMetadata `json:"metadata"`
	// JournalSeq is not in the original layout: every journal record up to
	// this sequence number is materialised in the session's files.
	JournalSeq int `json:"journalSeq,omitempty"`
	// JournalBytes is not in the original layout either: the journal's
	// length when it ended with record JournalSeq. A journal of exactly
	// this length holds nothing the files lack, so start-up can list the
	// session from this manifest without reading its journal (see
	// summary.go).
	JournalBytes int64 `json:"journalBytes,omitempty"`
}

type manifestMetadata struct {
	Title       string   `json:"title"`
	Description *string  `json:"description,omitempty"`
	Tags        []string `json:"tags"`
	CreatedAt   string   `json:"createdAt"`
	UpdatedAt   string   `json:"updatedAt"`
	// LastAccessedAt is not in the original layout; it is kept so that a
	// session reads back identically after a restart.
	LastAccessedAt string `json:"lastAccessedAt,omitempty"`
}

// branchFiles maps branch ids to file names and keeps the branches in the
// order they were first used.
type branchFiles struct {
	order []string
	files map[string][]string
}

func (b branchFiles) MarshalJSON() ([]byte, error) {
	obj := jsonx.Object{}
	for _, id := range b.order {
		obj.Set(id, b.files[id])
	}
	return obj.MarshalJSON()
}

func (b *branchFiles) UnmarshalJSON(data []byte) error {
	b.files = map[string][]string{}
	if err := json.Unmarshal(data, &b.files); err != nil {
		return err
	}
	b.order = nil
	for _, k := range jsonx.Keys(data) {
		if !slices.Contains(b.order, k) {
			b.order = append(b.order, k)
		}
	}
	return nil
}

// fileSet is the set of thought files of one session, main chain and
// branches, kept so the manifest can be rewritten at any time.
type fileSet struct {
	main        map[string]bool
	branches    map[string]map[string]bool
	branchOrder []string
}

func newFileSet() *fileSet {
	return &fileSet{main: map[string]bool{}, branches: map[string]map[string]bool{}}
}

// add records a file; it reports whether the file was new.
func (f *fileSet) add(branchID, name string) bool {
	if branchID == "" {
		if f.main[name] {
			return false
		}
		f.main[name] = true
		return true
	}
	set := f.branches[branchID]
	if set == nil {
		set = map[string]bool{}
		f.branches[branchID] = set
		f.branchOrder = append(f.branchOrder, branchID)
	}
	if set[name] {
		return false
	}
	set[name] = true
	return true
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// lists renders the set as the manifest's thoughtFiles and branchFiles, each
// list sorted by name as in the original layout.
func (f *fileSet) lists() ([]string, branchFiles) {
	bf := branchFiles{order: slices.Clone(f.branchOrder), files: map[string][]string{}}
	for _, id := range f.branchOrder {
		bf.files[id] = sortedKeys(f.branches[id])
	}
	return sortedKeys(f.main), bf
}
