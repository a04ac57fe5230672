package notebook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// toolsNode is where `make tools` installs Node 22 (npm package node@22),
// relative to the repository root.
var toolsNode = filepath.Join(".tools", "node_modules", "node", "bin", "node")

// minTypeScript is the first Node version that strips TypeScript types.
var minTypeScript = version{22, 6}

type version struct{ major, minor int }

func (v version) atLeast(o version) bool {
	return v.major > o.major || (v.major == o.major && v.minor >= o.minor)
}

func (v version) String() string { return fmt.Sprintf("v%d.%d", v.major, v.minor) }

// node is one node executable and its version.
type node struct {
	path string
	ver  version
}

// Toolchain finds the node and npm executables that run cells. With an
// explicit Node (THOUGHTBOX_NODE) only that one is used; otherwise the
// newest of `node` on the server's PATH and the Node 22 that `make tools`
// installs under .tools/ (looked for from the working directory and the
// executable's directory upwards) is chosen.
type Toolchain struct {
	// Node is the node executable to use ("" searches).
	Node string
	// NPM is the npm executable to use ("" uses the one beside the chosen
	// node, else npm on the server's PATH).
	NPM string

	once   sync.Once
	chosen node
	err    error
}

var versionPattern = regexp.MustCompile(`^v(\d+)\.(\d+)`)

func probe(path string) (node, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
	out, err := cmd.Output()
	if err != nil {
		return node{}, fmt.Errorf("%s --version: %w", path, err)
	}
	m := versionPattern.FindSubmatch(out)
	if m == nil {
		return node{}, fmt.Errorf("%s --version printed %q, not a version", path, out)
	}
	major, _ := strconv.Atoi(string(m[1]))
	minor, _ := strconv.Atoi(string(m[2]))
	return node{path: path, ver: version{major, minor}}, nil
}

// candidates lists the node executables to consider, without duplicates.
func candidates() []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if abs, err := filepath.Abs(p); err == nil && !seen[abs] {
			if st, err := os.Stat(abs); err == nil && !st.IsDir() {
				seen[abs] = true
				out = append(out, abs)
			}
		}
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, dir := range starts {
		for {
			add(filepath.Join(dir, toolsNode))
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	if p, err := exec.LookPath("node"); err == nil {
		add(p)
	}
	return out
}

func (t *Toolchain) resolve() {
	if t.Node != "" {
		t.chosen, t.err = probe(t.Node)
		if t.err != nil {
			t.err = fmt.Errorf("THOUGHTBOX_NODE=%s is not a working node executable: %w", t.Node, t.err)
		}
		return
	}
	var errs []error
	for _, p := range candidates() {
		n, err := probe(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if t.chosen.path == "" || !t.chosen.ver.atLeast(n.ver) {
			t.chosen = n
		}
	}
	if t.chosen.path == "" {
		t.err = errors.Join(append([]error{errors.New("no node executable found: install Node.js (22.6 or later for TypeScript) or set THOUGHTBOX_NODE")}, errs...)...)
	}
}

// nodeFor returns the node to run a cell of the given language with.
func (t *Toolchain) nodeFor(language string) (node, error) {
	t.once.Do(t.resolve)
	if t.err != nil {
		return node{}, t.err
	}
	if language == TypeScript && !t.chosen.ver.atLeast(minTypeScript) {
		return node{}, fmt.Errorf("TypeScript cells need Node %s or later (type stripping); the node found, %s, is %s: set THOUGHTBOX_NODE to a newer node",
			minTypeScript, t.chosen.path, t.chosen.ver)
	}
	return t.chosen, nil
}

// npm returns the npm executable and the node it runs on.
func (t *Toolchain) npm() (string, node, error) {
	n, err := t.nodeFor(JavaScript)
	if err != nil {
		return "", node{}, err
	}
	if t.NPM != "" {
		return t.NPM, n, nil
	}
	beside := filepath.Join(filepath.Dir(n.path), "npm")
	if _, err := os.Stat(beside); err == nil {
		return beside, n, nil
	}
	p, err := exec.LookPath("npm")
	if err != nil {
		return "", node{}, errors.New("no npm executable found: install npm or set THOUGHTBOX_NPM")
	}
	return p, n, nil
}
