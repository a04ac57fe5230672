package fsstore

import (
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

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// Export migration: at start-up, the linked export files (SessionExport
// v1.0) in an export directory whose sessions the store does not have are
// imported as sessions of the project, so that exports from an older server
// or another data directory become sessions again. The original server
// copied them to <data dir>/<YYYY-MM>/<id>/, a place it never reads; here
// they go where sessions live, projects/<project>/sessions/<YYYY-MM>/<id>/,
// and are loaded at once. Migration is best effort: a file that cannot be
// imported is reported and skipped, never a reason to fail the start.

// WithExportMigration makes Open import the export files of dir (see
// above). The files are left in place; a session the store has already is
// skipped, so later starts import nothing twice.
func WithExportMigration(dir string) Option { return func(s *Store) { s.exportsDir = dir } }

// Outcomes of migrating one export file.
const (
	MigrationMigrated = "migrated"
	MigrationSkipped  = "skipped"
	MigrationFailed   = "failed"
)

// MigrationReport is what the export migration at start-up did.
type MigrationReport struct {
	Migrated int
	Skipped  int
	Failed   int
	Details  []MigrationDetail
}

// MigrationDetail is the outcome for one export file.
type MigrationDetail struct {
	SourceFile string
	SessionID  string // "" when the file could not be read that far
	Status     string
	Reason     string // why it was skipped or failed
	// DestinationPath is the new session directory (migrated only).
	DestinationPath string
}

// maxExportFile bounds the size of an export file the migration reads.
const maxExportFile = 256 << 20

// migrationBranchID is what a branch id must look like to become a
// directory name (D6).
var migrationBranchID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9-]{1,128}$`) })

// Migration returns the report of the export migration Open ran (empty
// without WithExportMigration).
func (s *Store) Migration() MigrationReport { return s.migration }

// exportFile is the part of a linked export the migration reads.
type exportFile struct {
	Version string           `json:"version"`
	Session *storage.Session `json:"session"`
	Nodes   []storage.Node   `json:"nodes"`
}

// migrateExports imports the export files of s.exportsDir and logs what it
// did.
func (s *Store) migrateExports() {
	entries, err := os.ReadDir(s.exportsDir)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			s.log.Warn("export migration: cannot read the export directory", "dir", s.exportsDir, "err", err)
		}
		return
	}
	rep := &s.migration
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		d := s.migrateExport(filepath.Join(s.exportsDir, e.Name()))
		switch d.Status {
		case MigrationMigrated:
			rep.Migrated++
		case MigrationSkipped:
			rep.Skipped++
		default:
			rep.Failed++
			s.log.Warn("export migration: cannot import an export file; it is skipped", "file", d.SourceFile, "problem", d.Reason)
		}
		rep.Details = append(rep.Details, d)
	}
	if rep.Migrated > 0 || rep.Failed > 0 {
		s.log.Info("export migration", "dir", s.exportsDir, "migrated", rep.Migrated, "skipped", rep.Skipped, "failed", rep.Failed)
	}
}

// knows reports whether the store has the session, loaded or damaged, or
// finds it on disk.
func (s *Store) knows(id string) bool {
	s.mu.Lock()
	_, loaded := s.files[id]
	_, bad := s.damaged[id]
	s.mu.Unlock()
	return loaded || bad || s.discover(id) != nil
}

// migrateExport imports one export file.
func (s *Store) migrateExport(path string) MigrationDetail {
	d := MigrationDetail{SourceFile: path, Status: MigrationFailed}
	// Exports are named <session id>-<timestamp>.json: the exports of
	// sessions the store has are skipped without reading them.
	if name := filepath.Base(path); len(name) > 37 && name[36] == '-' && sessionIDPattern().MatchString(name[:36]) && s.knows(name[:36]) {
		d.SessionID, d.Status, d.Reason = name[:36], MigrationSkipped, "Session already exists"
		return d
	}
	info, err := os.Stat(path)
	if err == nil && info.Size() > maxExportFile {
		err = fmt.Errorf("the file is larger than %d MiB", maxExportFile>>20)
	}
	var ex exportFile
	if err == nil {
		err = readJSON(path, &ex)
	}
	if err != nil {
		d.Reason = "unreadable: " + err.Error()
		return d
	}
	if ex.Version == "" || ex.Session == nil || ex.Nodes == nil {
		d.Reason = "not a linked export: version, session or nodes missing"
		return d
	}
	sess := *ex.Session
	d.SessionID = sess.ID
	if !sessionIDPattern().MatchString(sess.ID) {
		d.Reason = fmt.Sprintf("session id %q cannot name a session directory", sess.ID)
		return d
	}
	if s.knows(sess.ID) {
		d.Status, d.Reason = MigrationSkipped, "Session already exists"
		return d
	}
	nodes, err := creationOrder(sess.ID, ex.Nodes)
	if err != nil {
		d.Reason = err.Error()
		return d
	}
	created, err := time.Parse(time.RFC3339Nano, sess.CreatedAt)
	if err != nil {
		d.Reason = fmt.Sprintf("session createdAt %q is not a timestamp", sess.CreatedAt)
		return d
	}
	partition := created.Local().Format("2006-01")
	dir, err := s.writeMigrated(sess, partition, nodes)
	if err != nil {
		d.Reason = err.Error()
		if errors.Is(err, os.ErrExist) {
			d.Status, d.Reason = MigrationSkipped, "Session already exists"
		}
		return d
	}
	s.loadMu.Lock()
	s.loadDir(dir, partition)
	s.loadMu.Unlock()
	if s.filesOf(sess.ID) == nil {
		s.mu.Lock()
		d.Reason = "imported to " + dir + " but it does not load: " + s.damaged[sess.ID]
		s.mu.Unlock()
		return d
	}
	d.Status, d.DestinationPath = MigrationMigrated, dir
	return d
}

// creationOrder checks an export's nodes and orders them as they were
// created: by timestamp, every node after the one it links from (prev).
// Each node id must be the one its number and branch give, and branch ids
// must be safe directory names.
func creationOrder(sid string, nodes []storage.Node) ([]storage.Node, error) {
	type item struct {
		n   storage.Node
		idx int
	}
	items := make([]item, len(nodes))
	byID := make(map[string]int, len(nodes))
	for i, n := range nodes {
		num := n.Data.ThoughtNumber
		if num < 1 || num > storage.MaxThoughtNumber {
			return nil, fmt.Errorf("node %q: thoughtNumber %d is not a whole number from 1 to %d", n.ID, num, storage.MaxThoughtNumber)
		}
		want := storage.MainNodeID(sid, num)
		if n.BranchID != nil {
			if !migrationBranchID().MatchString(*n.BranchID) || n.Data.BranchID != *n.BranchID {
				return nil, fmt.Errorf("node %q: branch id %q is not lowercase letters, digits and hyphens, or differs from its data's", n.ID, *n.BranchID)
			}
			want = storage.BranchNodeID(sid, *n.BranchID, num)
		} else if n.Data.BranchID != "" {
			return nil, fmt.Errorf("node %q: its data names branch %q but the node is on the main chain", n.ID, n.Data.BranchID)
		}
		if n.ID != want {
			return nil, fmt.Errorf("node id %q should be %q", n.ID, want)
		}
		if _, dup := byID[n.ID]; dup {
			return nil, fmt.Errorf("node %q appears twice", n.ID)
		}
		byID[n.ID] = i
		items[i] = item{n, i}
	}
	// The original wrote a rewritten thought with itself as prev; the node
	// that really came before names it in its next.
	before := map[string]string{}
	for _, it := range items {
		for _, id := range it.n.Next {
			if _, ok := before[id]; !ok && id != it.n.ID {
				before[id] = it.n.ID
			}
		}
	}
	for i := range items {
		n := &items[i].n
		if n.Prev != nil && *n.Prev == n.ID {
			n.Prev = nil
			if p, ok := before[n.ID]; ok {
				n.Prev = &p
			}
		}
		n.Next = []string{}
	}
	sorted := append([]item(nil), items...)
	sort.SliceStable(sorted, func(a, b int) bool { return sorted[a].n.Data.Timestamp < sorted[b].n.Data.Timestamp })
	out := make([]storage.Node, 0, len(items))
	state := make([]byte, len(items)) // 0 new, 1 being placed, 2 placed
	var place func(i int)
	place = func(i int) {
		if state[i] != 0 {
			return
		}
		state[i] = 1
		if p := items[i].n.Prev; p != nil {
			if j, ok := byID[*p]; ok {
				place(j)
			}
		}
		state[i] = 2
		out = append(out, items[i].n)
	}
	for _, it := range sorted {
		place(it.idx)
	}
	return out, nil
}

// writeMigrated writes the session as a journal (a session record, then
// every node in creation order) into a new directory and moves it into
// place in one rename; the store's loader writes the manifest and thought
// files from it. It fails with os.ErrExist when the session directory
// exists.
func (s *Store) writeMigrated(sess storage.Session, partition string, nodes []storage.Node) (string, error) {
	if sess.Tags == nil {
		sess.Tags = []string{}
	}
	if sess.LastAccessedAt == "" {
		sess.LastAccessedAt = sess.UpdatedAt
	}
	sess.PartitionPath = partition
	sess.ThoughtCount, sess.BranchCount = 0, 0
	var lines []byte
	seq := 0
	add := func(r record) error {
		seq++
		r.Seq = seq
		line, err := json.Marshal(r)
		lines = append(append(lines, line...), '\n')
		return err
	}
	if err := add(record{Op: opSession, Session: &sess}); err != nil {
		return "", err
	}
	for i := range nodes {
		if err := add(record{Op: opAdd, File: nodeRelPath(&nodes[i]), Node: &nodes[i]}); err != nil {
			return "", err
		}
	}
	tmp, err := os.MkdirTemp(s.base, ".migrating-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, journalName), lines, 0o600); err != nil {
		return "", err
	}
	if s.durability != DurabilityOff {
		if err := fsyncPath(filepath.Join(tmp, journalName)); err != nil {
			return "", err
		}
	}
	parent := filepath.Join(s.sessionsDir, partition)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return "", err
	}
	spreadSessions(parent)
	dir := filepath.Join(parent, sess.ID)
	if _, err := os.Stat(dir); err == nil {
		return "", os.ErrExist
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(dir); serr == nil {
			return "", os.ErrExist
		}
		return "", err
	}
	if s.durability != DurabilityOff {
		_ = fsyncPath(parent)
	}
	return dir, nil
}
