package notebook

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// stateFile is the notebook's own state in its workspace (fs mode).
const stateFile = "notebook.json"

// idPattern is the form of the ids this package makes; an id from a
// client that does not have it never reaches a path.
var idPattern = regexp.MustCompile(`^[0-9a-z]{1,32}$`)

// store holds the notebooks and their workspaces: root/<id>/ with README.md
// (the .src.md encoding, rewritten on every change), package.json,
// tsconfig.json (TypeScript), src/<filename> for each code cell, and, when
// persistent, notebook.json, from which the notebooks are read back after a
// restart.
type store struct {
	root    string
	persist bool
	now     func() time.Time

	mu      sync.Mutex
	books   map[string]*Notebook
	running map[string]bool // notebookID + "/" + cellID
}

func openStore(root string, persist bool) (*store, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, err
	}
	s := &store{root: root, persist: persist, now: time.Now, books: map[string]*Notebook{}, running: map[string]bool{}}
	if persist {
		entries, err := os.ReadDir(root)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() && idPattern.MatchString(e.Name()) {
				if n := s.readState(e.Name()); n != nil {
					s.books[n.ID] = n
				}
			}
		}
	}
	return s, nil
}

// readState reads a notebook saved by a previous run; a cell that was
// running when the server stopped is marked failed.
func (s *store) readState(id string) *Notebook {
	data, err := os.ReadFile(filepath.Join(s.root, id, stateFile))
	if err != nil {
		return nil
	}
	var n Notebook
	if json.Unmarshal(data, &n) != nil || n.ID != id {
		return nil
	}
	for _, c := range n.Cells {
		if c.Status == StatusRunning {
			c.Status, c.Output, c.Error = StatusFailed, "", "interrupted: the server stopped during the run"
		}
	}
	return &n
}

func (s *store) millis() int64 { return s.now().UnixMilli() }

const idAlphabet = "0123456789abcdefghijklmnopqrstuvwxyz"

// newID returns a random base-36 id of 10 characters.
func newID() string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
	}
	return string(b[:])
}

// errNotFound is the error of an unknown notebook.
func errNotFound(id string) error { return fmt.Errorf("Notebook %s not found", id) }

// get returns the notebook (the stored object: hold mu).
func (s *store) get(id string) (*Notebook, error) {
	if n := s.books[id]; n != nil {
		return n, nil
	}
	return nil, errNotFound(id)
}

// with runs fn on notebook id while holding the store's lock.
func (s *store) with(id string, fn func(n *Notebook) (any, error)) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.get(id)
	if err != nil {
		return nil, err
	}
	return fn(n)
}

// list returns copies of every notebook in creation order.
func (s *store) list() []*Notebook {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Notebook, 0, len(s.books))
	for _, n := range s.books {
		out = append(out, n.clone())
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].CreatedAt != out[j].CreatedAt {
			return out[i].CreatedAt < out[j].CreatedAt
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func (s *store) dir(id string) string { return filepath.Join(s.root, id) }

// home is the HOME and TMPDIR of cell processes.
func (s *store) home() (string, error) {
	h := filepath.Join(s.root, ".home")
	return h, os.MkdirAll(h, 0o700)
}

// add stores a new notebook, giving it and its cells fresh ids, and writes
// its whole workspace; on a failure nothing is left behind.
func (s *store) add(n *Notebook) (*Notebook, error) {
	if err := checkFilenames(n.Cells); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for n.ID = newID(); s.books[n.ID] != nil; n.ID = newID() {
	}
	for _, c := range n.Cells {
		c.ID = newID()
	}
	n.CreatedAt = s.millis()
	n.UpdatedAt = n.CreatedAt
	if err := s.writeWorkspace(n); err != nil {
		_ = os.RemoveAll(s.dir(n.ID))
		return nil, err
	}
	s.books[n.ID] = n
	return n.clone(), nil
}

// writeWorkspace writes every file of n's workspace.
func (s *store) writeWorkspace(n *Notebook) error {
	if err := os.MkdirAll(filepath.Join(s.dir(n.ID), "src"), 0o700); err != nil {
		return err
	}
	if n.TSConfig != "" {
		if err := writeFile(filepath.Join(s.dir(n.ID), "tsconfig.json"), n.TSConfig); err != nil {
			return err
		}
	}
	for _, c := range n.Cells {
		if err := s.writeCellFile(n, c); err != nil {
			return err
		}
	}
	return s.save(n)
}

// writeCellFile writes a code or package.json cell's source to its file.
func (s *store) writeCellFile(n *Notebook, c *Cell) error {
	switch c.Type {
	case TypePackageJSON:
		return writeFile(filepath.Join(s.dir(n.ID), "package.json"), c.Source)
	case TypeCode:
		if err := checkFilename(c.Filename); err != nil {
			return err
		}
		return writeFile(filepath.Join(s.dir(n.ID), "src", c.Filename), c.Source)
	}
	return nil
}

// save rewrites README.md (and notebook.json when persistent).
func (s *store) save(n *Notebook) error {
	if err := writeFile(filepath.Join(s.dir(n.ID), "README.md"), Encode(n)); err != nil {
		return err
	}
	if !s.persist {
		return nil
	}
	data, err := json.Marshal(n)
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(s.dir(n.ID), stateFile), string(data))
}

// writeFile replaces path's content atomically.
func writeFile(path, content string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.WriteString(content)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}

// Errors of filename checks.
var (
	errFilenameSeparators = errors.New("Invalid filename: path separators not allowed")
	errFilenameEmpty      = errors.New("Invalid filename: cannot be empty")
	errFilenameControl    = errors.New("Invalid filename: control characters not allowed")
)

// checkFilename refuses a code cell filename that is not one plain name in
// the notebook's src/ folder.
func checkFilename(name string) error {
	switch {
	case strings.ContainsAny(name, `/\`) || strings.Contains(name, ".."):
		return errFilenameSeparators
	case strings.TrimSpace(name) == "" || name == ".":
		return errFilenameEmpty
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return errFilenameControl
	}
	return nil
}

// checkFilenames checks every code cell's filename and that no two code
// cells share one (they would share a file).
func checkFilenames(cells []*Cell) error {
	seen := map[string]bool{}
	for _, c := range cells {
		if c.Type != TypeCode {
			continue
		}
		if err := checkFilename(c.Filename); err != nil {
			return err
		}
		if seen[c.Filename] {
			return fmt.Errorf("filename %s is used by two code cells; each code cell needs its own file", c.Filename)
		}
		seen[c.Filename] = true
	}
	return nil
}
