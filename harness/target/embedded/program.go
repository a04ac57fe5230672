package embedded

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
)

// A child reference server runs the thoughtbox command when one was built
// beside this binary from the same clean commit (as make build leaves them
// in bin/), and this binary run again (ServeIfRequested) otherwise: the
// same server either way, but thoughtbox is half the size and links none of
// the harness, so it starts in about 24 ms of CPU against 34 (100 stdio
// starts each, time(1)); over stdio every MCP session starts one, and a
// conformance cell starts some 550 per era. A test binary has no
// thoughtbox beside it, and a build from a tree with uncommitted changes is
// never taken for one: it cannot be told apart from a build of another such
// tree.

// program is what a child reference server runs.
type program struct {
	path string
	// own is true when path is this binary: it serves when ServeEnv asks;
	// thoughtbox reads THOUGHTBOX_TRANSPORT.
	own bool
}

// serverProgram returns the program of a child reference server. With
// ProfileEnv set it is always this binary: the CPU profile is written by
// ServeIfRequested.
func serverProgram() (program, error) {
	exe, err := os.Executable()
	if err != nil {
		return program{}, err
	}
	if _, profiling := os.LookupEnv(ProfileEnv); !profiling {
		if path, ok := thoughtboxBeside(exe); ok {
			return program{path: path}, nil
		}
	}
	return program{path: exe, own: true}, nil
}

// otherBuild returns the program of another build of the thoughtbox
// command at path (Options.Program), run as thoughtbox is.
func otherBuild(path string) (program, error) {
	if err := CheckProgram(path); err != nil {
		return program{}, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return program{}, err
	}
	return program{path: abs}, nil
}

// CheckProgram reports why path cannot be another build's thoughtbox
// command (Options.Program): it is missing, or not an executable file.
func CheckProgram(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("the reference server's build %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("the reference server's build %s is not an executable file", path)
	}
	return nil
}

// found is what thoughtboxBeside found: it looks once per process.
var found struct {
	once sync.Once
	path string
	ok   bool
}

// thoughtboxBeside returns the thoughtbox command beside exe, when it is a
// build of the same clean commit by the same Go.
func thoughtboxBeside(exe string) (string, bool) {
	found.once.Do(func() {
		own, ok := debug.ReadBuildInfo()
		if !ok {
			return
		}
		name := "thoughtbox"
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		path := filepath.Join(filepath.Dir(exe), name)
		other, err := buildinfo.ReadFile(path)
		if err != nil || !sameCleanBuild(own, other) {
			return
		}
		found.path, found.ok = path, true
	})
	return found.path, found.ok
}

// sameCleanBuild reports whether other is the thoughtbox command of the
// module own was built from, at the same commit with no uncommitted
// changes in either, by the same Go.
func sameCleanBuild(own, other *debug.BuildInfo) bool {
	if own.Main.Path == "" || other.Main.Path != own.Main.Path || other.Path != own.Main.Path+"/cmd/thoughtbox" ||
		other.GoVersion != own.GoVersion {
		return false
	}
	rev, clean := vcs(own)
	otherRev, otherClean := vcs(other)
	return rev != "" && clean && otherClean && otherRev == rev
}

// vcs returns the commit a binary was built from and whether the tree was
// clean ("" when the build recorded none).
func vcs(bi *debug.BuildInfo) (revision string, clean bool) {
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			clean = s.Value == "false"
		}
	}
	return revision, clean
}
