package fsstore

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// sessionFiles persists one session. It implements storage.Persister: the
// chain calls it with the chain's lock held, and a change is acknowledged as
// soon as its journal record is written. The thought files and the manifest
// are written later by materialize, from snapshots kept in pending.
type sessionFiles struct {
	id        string
	dir       string
	partition string
	wake      func()

	mu            sync.Mutex
	files         *fileSet
	meta          manifestMetadata
	manifestDirty bool
	seq           int
	pending       map[string]pendingFile
	loadErrors    []string

	// writeMu serialises materialize, so files are written in the order
	// their snapshots were taken.
	writeMu sync.Mutex
}

// pendingFile is the latest content of a thought file still to be written.
type pendingFile struct {
	rel  string
	node storage.Node
}

func newSessionFiles(id, dir, partition string, wake func()) *sessionFiles {
	return &sessionFiles{id: id, dir: dir, partition: partition, wake: wake, files: newFileSet(),
		pending: map[string]pendingFile{}}
}

func nodeRelPath(n *storage.Node) string {
	bid := ""
	if n.BranchID != nil {
		bid = *n.BranchID
	}
	return relPath(bid, n.Data.ThoughtNumber)
}

// journal appends a record with the next sequence number. Caller holds mu.
func (sf *sessionFiles) journal(r record) error {
	r.Seq = sf.seq + 1
	if err := appendRecord(sf.dir, r); err != nil {
		return err
	}
	sf.seq++
	return nil
}

// Append journals the new node; its file and its predecessor's (whose next
// list changed) are written later.
func (sf *sessionFiles) Append(s *storage.Session, n *storage.Node, prev *storage.Node) error {
	rel := nodeRelPath(n)
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if err := sf.journal(record{Op: opAdd, File: rel, Node: n}); err != nil {
		return err
	}
	bid := ""
	if n.BranchID != nil {
		bid = *n.BranchID
	}
	sf.files.add(bid, filepath.Base(rel))
	sf.pending[n.ID] = pendingFile{rel, n.Clone()}
	if prev != nil {
		sf.pending[prev.ID] = pendingFile{nodeRelPath(prev), prev.Clone()}
	}
	sf.setMeta(s)
	sf.manifestDirty = true
	sf.wake()
	return nil
}

// Rewrite journals a changed node (for example one with a new critique).
func (sf *sessionFiles) Rewrite(_ *storage.Session, n *storage.Node) error {
	rel := nodeRelPath(n)
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if err := sf.journal(record{Op: opRewrite, File: rel, Node: n}); err != nil {
		return err
	}
	sf.pending[n.ID] = pendingFile{rel, n.Clone()}
	sf.wake()
	return nil
}

// Update journals changed session metadata.
func (sf *sessionFiles) Update(s *storage.Session) error {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if err := sf.journal(record{Op: opMeta, Session: s}); err != nil {
		return err
	}
	sf.setMeta(s)
	sf.manifestDirty = true
	sf.wake()
	return nil
}

// setMeta copies the manifest's metadata fields from s. Caller holds mu.
func (sf *sessionFiles) setMeta(s *storage.Session) {
	sf.meta = manifestMetadata{Title: s.Title, Description: s.Description, Tags: append([]string{}, s.Tags...),
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, LastAccessedAt: s.LastAccessedAt}
}

// hasWork reports whether materialize has anything to write.
func (sf *sessionFiles) hasWork() bool {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	return len(sf.pending) > 0 || sf.manifestDirty
}

// materialize writes every pending thought file, then the manifest. The
// manifest lists only files that exist: its file lists and journal sequence
// are taken together with the batch of files.
func (sf *sessionFiles) materialize() error {
	sf.writeMu.Lock()
	defer sf.writeMu.Unlock()
	sf.mu.Lock()
	batch := sf.pending
	sf.pending = map[string]pendingFile{}
	writeManifest := sf.manifestDirty
	sf.manifestDirty = false
	main, branches := sf.files.lists()
	m := manifest{ID: sf.id, Version: manifestVersion, ThoughtFiles: main, BranchFiles: branches, Metadata: sf.meta, JournalSeq: sf.seq}
	sf.mu.Unlock()

	ids := make([]string, 0, len(batch))
	for id := range batch {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var errs []error
	for _, id := range ids {
		p := batch[id]
		if err := writeAtomic(filepath.Join(sf.dir, p.rel), p.node); err != nil {
			errs = append(errs, err)
			sf.mu.Lock()
			if _, newer := sf.pending[id]; !newer {
				sf.pending[id] = p
			}
			sf.mu.Unlock()
		}
	}
	if len(errs) == 0 && writeManifest {
		errs = append(errs, writeAtomic(filepath.Join(sf.dir, "manifest.json"), m))
	} else if writeManifest {
		sf.mu.Lock()
		sf.manifestDirty = true
		sf.mu.Unlock()
	}
	return errors.Join(errs...)
}

// queue schedules a node's file to be (re)written.
func (sf *sessionFiles) queue(n storage.Node) {
	sf.mu.Lock()
	sf.pending[n.ID] = pendingFile{nodeRelPath(&n), n}
	sf.mu.Unlock()
}

// check reports the state of the session's files after materialising
// everything pending: the manifest must parse and every thought file exist.
func (sf *sessionFiles) check() storage.Integrity {
	res := storage.ValidIntegrity()
	mpath := filepath.Join(sf.dir, "manifest.json")
	var m manifest
	if _, err := os.Stat(mpath); err != nil {
		res.ManifestExists, res.ManifestValid = false, false
		res.Errors = append(res.Errors, "Manifest not found: "+mpath)
	} else if err := readJSON(mpath, &m); err != nil {
		res.ManifestValid = false
		res.Errors = append(res.Errors, "Manifest unreadable: "+err.Error())
	}
	sf.mu.Lock()
	main, branches := sf.files.lists()
	loadErrors := append([]string{}, sf.loadErrors...)
	sf.mu.Unlock()
	for _, name := range main {
		if _, err := os.Stat(filepath.Join(sf.dir, name)); err != nil {
			res.MissingThoughtFiles = append(res.MissingThoughtFiles, name)
			res.Errors = append(res.Errors, "Missing thought file: "+name)
		}
	}
	for _, bid := range branches.order {
		for _, name := range branches.files[bid] {
			if _, err := os.Stat(filepath.Join(sf.dir, "branches", bid, name)); err != nil {
				res.MissingBranchFiles[bid] = append(res.MissingBranchFiles[bid], name)
				res.Errors = append(res.Errors, "Missing branch thought file: "+bid+"/"+name)
			}
		}
	}
	res.Errors = append(res.Errors, loadErrors...)
	res.Valid = len(res.Errors) == 0
	return res
}
