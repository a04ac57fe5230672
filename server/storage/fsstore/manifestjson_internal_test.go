package fsstore

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// TestManifestJSON compares the hand-written manifest encoding with
// encoding/json's (reflection, the branches' MarshalJSON, two-space
// indentation, no HTML escaping) on random manifests: empty and nil lists,
// branch ids and titles with any runes, the optional members present and
// absent.
func TestManifestJSON(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	runes := []string{"a", "Z", "0", ".", "/", ":", "<", ">", "&", `"`, `\`, "\n", "\t", "\x00", "\x1f", "é", "ветка", "\u2028", "\u2029", "\xff", "😀", " "}
	str := func() string {
		var b []byte
		for range r.Intn(6) {
			b = append(b, runes[r.Intn(len(runes))]...)
		}
		return string(b)
	}
	strs := func() []string {
		switch r.Intn(4) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		out := make([]string, 1+r.Intn(4))
		for i := range out {
			out[i] = str()
		}
		return out
	}
	for i := range 500 {
		m := manifest{ID: str(), Version: manifestVersion, ThoughtFiles: strs(),
			BranchFiles: branchFiles{files: map[string][]string{}},
			Metadata:    manifestMetadata{Title: str(), Tags: strs(), CreatedAt: str(), UpdatedAt: str()}}
		for range r.Intn(4) {
			id := str()
			if _, seen := m.BranchFiles.files[id]; seen {
				continue
			}
			m.BranchFiles.order = append(m.BranchFiles.order, id)
			if r.Intn(5) > 0 { // else an id without a list: null
				m.BranchFiles.files[id] = strs()
			}
		}
		if r.Intn(2) == 0 {
			d := str()
			m.Metadata.Description = &d
		}
		if r.Intn(2) == 0 {
			m.Metadata.LastAccessedAt = str()
		}
		if r.Intn(2) == 0 {
			m.JournalSeq, m.JournalBytes = r.Intn(1000)-10, r.Int63()-r.Int63()
		}
		want, err := jsonx.Reflected(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.AppendPrettyJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("manifest %d:\n got %s\nwant %s", i, got, want)
		}
		var got []byte
		if err := jsonx.WithPretty(m, func(b []byte) { got = bytes.Clone(b) }); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("jsonx.WithPretty of manifest %d: %v\n got %s\nwant %s", i, err, got, want)
		}
	}
}
