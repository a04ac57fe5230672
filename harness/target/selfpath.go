package target

import (
	"os"
	"path/filepath"
	"strings"
)

// A child server the harness starts from its own binary (the embedded
// reference server, the no-op server, a test's relay) runs the
// initialisation of every package the harness links, and godog's runs `go
// env GOTOOLDIR` (github.com/cucumber/godog/internal/builder) when it finds
// go on the PATH: some 60 ms of CPU for every child, which over stdio (a
// child per MCP session) was a third of a conformance cell's CPU. Those
// servers never run go, so their PATH leaves out the directories that hold
// the Go toolchain's commands and nothing else (such as /usr/local/go/bin);
// a directory that holds other commands too (such as /usr/bin) stays, and
// with it the cost. A --command target's environment is left as it is.

// toolchainCommands are the commands of a Go toolchain's bin directory.
var toolchainCommands = map[string]bool{"go": true, "gofmt": true}

// SelfChildEnv returns what the environment of a child that is this binary
// run again adds: a PATH without the toolchain-only directories, or
// nothing when the PATH holds none.
func SelfChildEnv() []string {
	path, ok := os.LookupEnv("PATH")
	if !ok {
		return nil
	}
	if kept := withoutGoToolchain(path); kept != path {
		return []string{"PATH=" + kept}
	}
	return nil
}

// withoutGoToolchain returns path without the directories that hold go and
// no command but go and gofmt.
func withoutGoToolchain(path string) string {
	dirs := filepath.SplitList(path)
	kept := dirs[:0:0]
	for _, d := range dirs {
		if !toolchainOnly(d) {
			kept = append(kept, d)
		}
	}
	return strings.Join(kept, string(os.PathListSeparator))
}

func toolchainOnly(dir string) bool {
	if dir == "" {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, "go")); err != nil {
		return false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !toolchainCommands[e.Name()] {
			return false
		}
	}
	return true
}
