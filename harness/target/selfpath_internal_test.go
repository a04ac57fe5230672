package target

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dirWith makes a directory holding empty executables with the given names.
func dirWith(t *testing.T, names ...string) string {
	t.Helper()
	d := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(d, n), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func TestSelfChildEnvLeavesOutToolchainOnlyDirectories(t *testing.T) {
	goroot := dirWith(t, "go", "gofmt")
	goOnly := dirWith(t, "go")
	shared := dirWith(t, "go", "gofmt", "node")
	other := dirWith(t, "node", "npm")
	gofmtOnly := dirWith(t, "gofmt")
	sep := string(os.PathListSeparator)
	path := strings.Join([]string{other, goroot, "", shared, goOnly, gofmtOnly, "/does/not/exist"}, sep)
	got := withoutGoToolchain(path)
	want := strings.Join([]string{other, "", shared, gofmtOnly, "/does/not/exist"}, sep)
	if got != want {
		t.Errorf("withoutGoToolchain:\n got %s\nwant %s", got, want)
	}
	if p := strings.Join([]string{other, shared}, sep); withoutGoToolchain(p) != p {
		t.Errorf("a PATH without a toolchain-only directory changed: %s", withoutGoToolchain(p))
	}
}
