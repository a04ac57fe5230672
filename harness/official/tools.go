package official

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ToolsDir is the directory, at the module root, where `make conformance`
// (and so `make test` and `make run`) installs Node 22 and the suite.
const ToolsDir = ".tools"

// Relative paths of Node and of the suite's CLI inside ToolsDir.
const (
	nodePath = "node_modules/.bin/node"
	cliPath  = "node_modules/@modelcontextprotocol/conformance/dist/index.js"
	pkgPath  = "node_modules/@modelcontextprotocol/conformance/package.json"
)

// ErrNotInstalled wraps the errors of [FindTools] when Node 22 or the
// suite is missing.
var ErrNotInstalled = errors.New("the official MCP conformance suite is not installed")

// Tools are the programs that run the official suite.
type Tools struct {
	// Node is Node.js 22; CLI the suite's dist/index.js.
	Node, CLI string
	// NodeVersion ("v22.…") and SuiteVersion ("0.1.16") as installed.
	NodeVersion, SuiteVersion string
}

// FindTools locates Node 22 and the suite in dir (a ToolsDir), or, when dir
// is "", in the ToolsDir of the working directory or of its nearest parent
// that has one (the module root, when run from a package directory). The
// error names the missing path and the make target that installs it.
func FindTools(ctx context.Context, dir string) (Tools, error) {
	if dir == "" {
		dir = searchUp(ToolsDir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Tools{}, err
	}
	t := Tools{Node: filepath.Join(abs, nodePath), CLI: filepath.Join(abs, cliPath)}
	for _, p := range []string{t.Node, t.CLI} {
		if _, err := os.Stat(p); err != nil {
			return Tools{}, fmt.Errorf("%w: %s is missing; `make conformance` (part of `make test` and `make run`) installs Node 22 and @modelcontextprotocol/conformance@%s into %s/ at the module root, or pass the directory with --tools",
				ErrNotInstalled, p, SuiteVersion, ToolsDir)
		}
	}
	vctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(vctx, t.Node, "--version").Output()
	if err != nil {
		return Tools{}, fmt.Errorf("%w: %s --version: %v", ErrNotInstalled, t.Node, err)
	}
	t.NodeVersion = strings.TrimSpace(string(out))
	if major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(t.NodeVersion, "v"), ".", 2)[0]); major < 22 {
		return Tools{}, fmt.Errorf("%w: %s is Node %s, the suite needs Node 22; `make conformance` installs it", ErrNotInstalled, t.Node, t.NodeVersion)
	}
	if b, err := os.ReadFile(filepath.Join(abs, pkgPath)); err == nil {
		var pkg struct {
			Version string `json:"version"`
		}
		if json.Unmarshal(b, &pkg) == nil {
			t.SuiteVersion = pkg.Version
		}
	}
	return t, nil
}

// searchUp returns name in the working directory or its nearest parent
// that has it, else name itself (relative to the working directory).
func searchUp(name string) string {
	wd, err := os.Getwd()
	if err != nil {
		return name
	}
	for d := wd; ; {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			// The module root: the place the Makefile installs to.
			return p
		}
		parent := filepath.Dir(d)
		if parent == d {
			return name
		}
		d = parent
	}
}

// Scenario is one server scenario the suite lists for a revision.
type Scenario struct {
	Name string `json:"name"`
	// SpecVersions are the MCP revisions the scenario belongs to (when the
	// suite says).
	SpecVersions []string `json:"specVersions,omitempty"`
	// Revision is the requirement set (MCP revision) it was listed for.
	Revision string `json:"revision,omitempty"`
	// Scored is false for the scenarios the suite runs and reports but
	// never scores for the revision; Category then says why ("extension",
	// "pending", "added-after-release").
	Scored   bool   `json:"scored"`
	Category string `json:"category,omitempty"`
}

// Revisions are the MCP revisions whose requirement sets the suite
// (SuiteVersion) knows, oldest first.
var Revisions = []string{"2025-11-25", "2026-07-28"}

// List asks the suite for the server scenarios a revision requires
// (`list --server --requirements <revision>`), the never-scored ones it
// runs beside them included.
func (t Tools) List(ctx context.Context, revision string) ([]Scenario, error) {
	lctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(lctx, t.Node, t.CLI, "list", "--server", "--requirements", revision)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s %s list --server --requirements %s: %v: %s", t.Node, t.CLI, revision, err, lastLines(string(out), 5))
	}
	list := parseList(string(out))
	for i := range list {
		list[i].Revision = revision
	}
	return list, nil
}

// parseList reads the server scenarios of `list --server --requirements`:
// the lines "  - name" under "Server scenarios" (scored), and the lines
// "    - name [server]" under "Run and reported, but never scored", in
// sections such as "  extension (6):". Client scenarios are skipped.
func parseList(out string) []Scenario {
	var list []Scenario
	section, category := "", ""
	for _, line := range strings.Split(out, "\n") {
		trimmed := strings.TrimSpace(line)
		lower := strings.ToLower(trimmed)
		switch {
		case strings.HasPrefix(lower, "server scenarios"):
			section = "server"
			continue
		case strings.HasPrefix(lower, "client scenarios"):
			section = "client"
			continue
		case strings.HasPrefix(lower, "run and reported"):
			section = "unscored"
			continue
		case section == "unscored" && strings.HasSuffix(trimmed, ":") && !strings.HasPrefix(trimmed, "- "):
			category, _, _ = strings.Cut(strings.TrimSuffix(trimmed, ":"), " (")
			continue
		}
		rest, ok := strings.CutPrefix(trimmed, "- ")
		if !ok {
			continue
		}
		name, tail, _ := strings.Cut(rest, " ")
		tail = strings.Trim(strings.TrimSpace(tail), "[]")
		switch section {
		case "server":
			s := Scenario{Name: name, Scored: true}
			if tail != "" {
				s.SpecVersions = strings.Split(tail, ",")
			}
			list = append(list, s)
		case "unscored":
			if tail == "server" {
				list = append(list, Scenario{Name: name, Category: category})
			}
		}
	}
	return list
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
