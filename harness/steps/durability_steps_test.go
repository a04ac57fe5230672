package steps

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExportsCompareApartFromExportedAt(t *testing.T) {
	a := []byte(`{"version":"1.0","exportedAt":"2026-01-01T00:00:00.000Z","nodes":[{"id":"s:1","next":["s:2"]}]}`)
	b := []byte(`{"version":"1.0","exportedAt":"2026-02-02T10:00:00.000Z","nodes":[{"id":"s:1","next":["s:2"]}]}`)
	if err := sameExportApartFromExportedAt(a, b); err != nil {
		t.Fatalf("exports that differ only in exportedAt: %v", err)
	}
	c := []byte(`{"version":"1.0","exportedAt":"2026-02-02T10:00:00.000Z","nodes":[{"id":"s:1","next":[]}]}`)
	if err := sameExportApartFromExportedAt(a, c); err == nil || !strings.Contains(err.Error(), "$.nodes[0].next") {
		t.Fatalf("lost next link: %v", err)
	}
	d := []byte(`{"exportedAt":"2026-02-02T10:00:00.000Z","version":"1.0","nodes":[{"id":"s:1","next":["s:2"]}]}`)
	if err := sameExportApartFromExportedAt(a, d); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Fatalf("reordered keys must differ byte for byte: %v", err)
	}
}

func TestManifestProblems(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("manifest.json", `{"thoughtFiles":["001.json","002.json"],"branchFiles":{"alt":["003.json"]}}`)
	write("001.json", `{"id":"s:1"}`)
	write("002.json", `{"id":"s:2"}`)
	write("branches/alt/003.json", `{"id":"s:alt:3"}`)
	if p := manifestProblems(dir); len(p) != 0 {
		t.Fatalf("whole files: %v", p)
	}
	write("002.json", `{"id":"s:`)
	os.Remove(filepath.Join(dir, "branches/alt/003.json"))
	if p := manifestProblems(dir); len(p) != 2 || !strings.Contains(p[0], "002.json") || !strings.Contains(p[1], "003.json") {
		t.Fatalf("a torn and a missing file: %v", p)
	}
	write("manifest.json", `{"thoughtFiles":[`)
	if p := manifestProblems(dir); len(p) != 1 || !strings.Contains(p[0], "manifest.json") {
		t.Fatalf("a torn manifest: %v", p)
	}
}
