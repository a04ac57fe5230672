package embedded

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

func build(path, main, goVersion, revision, modified string) *debug.BuildInfo {
	bi := &debug.BuildInfo{Path: path, GoVersion: goVersion, Main: debug.Module{Path: main, Version: "(devel)"}}
	if revision != "" {
		bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "vcs.revision", Value: revision})
	}
	if modified != "" {
		bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "vcs.modified", Value: modified})
	}
	return bi
}

// TestThoughtboxBesideOnlyFromTheSameCleanBuild: the thoughtbox command beside the
// harness stands in for it only when both were built by the same Go from
// the same commit of the same module with nothing uncommitted.
func TestThoughtboxBesideOnlyFromTheSameCleanBuild(t *testing.T) {
	const mod, rev = "github.com/thoughtbox-bench/tbbench", "732a95812ab"
	own := build(mod+"/cmd/tbbench", mod, "go1.26.0", rev, "false")
	for _, c := range []struct {
		name  string
		own   *debug.BuildInfo
		other *debug.BuildInfo
		want  bool
	}{
		{"same commit, clean", own, build(mod+"/cmd/thoughtbox", mod, "go1.26.0", rev, "false"), true},
		{"another commit", own, build(mod+"/cmd/thoughtbox", mod, "go1.26.0", "0a30125", "false"), false},
		{"the thoughtbox built from a changed tree", own, build(mod+"/cmd/thoughtbox", mod, "go1.26.0", rev, "true"), false},
		{"this binary built from a changed tree", build(mod+"/cmd/tbbench", mod, "go1.26.0", rev, "true"), build(mod+"/cmd/thoughtbox", mod, "go1.26.0", rev, "false"), false},
		{"no commit recorded", build(mod+"/cmd/tbbench", mod, "go1.26.0", "", ""), build(mod+"/cmd/thoughtbox", mod, "go1.26.0", "", ""), false},
		{"another Go", own, build(mod+"/cmd/thoughtbox", mod, "go1.25.4", rev, "false"), false},
		{"another command of the module", own, build(mod+"/cmd/mcp-sidecar", mod, "go1.26.0", rev, "false"), false},
		{"another module's thoughtbox", own, build("example.com/x/cmd/thoughtbox", "example.com/x", "go1.26.0", rev, "false"), false},
	} {
		if got := sameCleanBuild(c.own, c.other); got != c.want {
			t.Errorf("%s: sameCleanBuild = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestChildEnvNamesTheTransportForItsProgram: this binary serves when
// ServeEnv asks and runs with the Go toolchain off its PATH; thoughtbox
// reads THOUGHTBOX_TRANSPORT. Both get the same settings.
func TestChildEnvNamesTheTransportForItsProgram(t *testing.T) {
	goBin := t.TempDir() // a directory of the Go toolchain's commands alone
	for _, name := range []string{"go", "gofmt"} {
		if err := os.WriteFile(filepath.Join(goBin, name), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", goBin)
	o := Options{Storage: "memory", Env: []string{"THOUGHTBOX_SESSION_TIMEOUT=1m"}}
	self := childEnv(o, "/data", "http", program{path: "/bin/tbbench", own: true})
	other := childEnv(o, "/data", "http", program{path: "/bin/thoughtbox"})
	for _, want := range []string{"THOUGHTBOX_STORAGE=memory", "THOUGHTBOX_DATA_DIR=/data", "PORT={port}", "THOUGHTBOX_SESSION_TIMEOUT=1m", "DISABLE_THOUGHT_LOGGING=true"} {
		if !slices.Contains(self, want) || !slices.Contains(other, want) {
			t.Errorf("%s missing: this binary %v, thoughtbox %v", want, self, other)
		}
	}
	if !slices.Contains(self, ServeEnv+"=http") || slices.Contains(self, "THOUGHTBOX_TRANSPORT=http") || !slices.Contains(self, "PATH=") {
		t.Errorf("this binary's environment: %v; want %s=http and the toolchain off PATH", self, ServeEnv)
	}
	if !slices.Contains(other, "THOUGHTBOX_TRANSPORT=http") || slices.Contains(other, ServeEnv+"=http") {
		t.Errorf("thoughtbox's environment: %v; want THOUGHTBOX_TRANSPORT=http", other)
	}
	if stdio := childEnv(o, "/data", "stdio", program{path: "/bin/thoughtbox"}); slices.Contains(stdio, "PORT={port}") || !slices.Contains(stdio, "THOUGHTBOX_TRANSPORT=stdio") {
		t.Errorf("over stdio: %v", stdio)
	}
}

// TestATestBinaryServesItself: a test binary has no thoughtbox beside it,
// so its children are itself.
func TestATestBinaryServesItself(t *testing.T) {
	p, err := serverProgram()
	if err != nil || !p.own {
		t.Fatalf("serverProgram = %+v, %v; want this binary", p, err)
	}
}

// fakeCommand stands in for a command target that starts configured and
// sibling servers.
type fakeCommand struct{ target.Target }

func (fakeCommand) Info() target.Info { return target.Info{Address: "http://127.0.0.1:1/mcp"} }
func (f fakeCommand) Configured(context.Context, []string) (target.Target, error) {
	return fakeCommand{}, nil
}
func (f fakeCommand) Sibling(context.Context) (target.Target, error) { return fakeCommand{}, nil }

// TestServersStartedFromAChildRunItsProgram: the configured server and the
// second process a child starts run the child's program, and say so.
func TestServersStartedFromAChildRunItsProgram(t *testing.T) {
	c := &child{Target: fakeCommand{}, program: program{path: "/bin/thoughtbox"}}
	configured, err := c.Configured(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Sibling(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]target.Target{"configured": configured, "second process": second} {
		if got := s.(*child).program; got != c.program {
			t.Errorf("%s runs %+v, want %+v", name, got, c.program)
		}
		if a := s.Info().Address; !strings.HasSuffix(a, "(/bin/thoughtbox)") {
			t.Errorf("%s's address %q does not name /bin/thoughtbox", name, a)
		}
	}
}
