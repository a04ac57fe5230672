package fsstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/sysfile"
)

// sessionFiles persists one session. It implements storage.Persister: the
// chain calls it with the chain's lock held, and a change is acknowledged as
// soon as its journal record is written. The thought files and the manifest
// are written later by materialize, from snapshots kept in pending.
//
// Only the process holding the session's lock (see own.go) appends to the
// journal or writes the session's files; other processes read them.
type sessionFiles struct {
	id        string
	dir       string
	partition string
	wake      func()
	lock      *sessionLock
	// durability and commit make acknowledged changes durable (commit is
	// used with DurabilityBatch only).
	durability Durability
	commit     *groupCommit

	mu            sync.Mutex
	files         *fileSet
	meta          manifestMetadata
	manifestDirty bool
	seq           int
	pending       map[string]pendingFile
	loadErrors    []string
	// owned is true while this process holds the session's lock.
	owned bool
	// unverified are the nodes whose files may lag behind the journal: the
	// records were written by another process, which may have died before
	// writing the files. They are checked when this process takes over.
	unverified map[string]bool

	// writeMu serialises materialize, so files are written in the order
	// their snapshots were taken.
	writeMu sync.Mutex

	// ownMu serialises taking and giving up the lock; holders counts the
	// Opens (and the Create) of this process not yet released.
	ownMu     sync.Mutex
	holders   int
	idleSince time.Time
	// disowned is the stat of the journal when this process last gave up
	// the lock (under ownMu; nil before it first did): Open skips the
	// take-over when the journal is still the same (untouched).
	disowned os.FileInfo

	// tailMu serialises reading the journal of a session this process does
	// not own into memory; offset is how much of it is in memory.
	tailMu sync.Mutex
	offset int64
	chain  *storage.Chain

	// jlen is the journal's length up to record seq as this process last
	// knew it (under mu); manifests record it (JournalBytes).
	jlen int64
	// jfd is the journal opened for appending while this process owns the
	// session (under mu; -1 when it is not open), so that an append is one
	// write instead of an open, a write and a close. It is closed before
	// the lock is given up (disown), and not kept when openJournals is at
	// maxOpenJournals.
	jfd int
	// summary is true while chain holds only the session's metadata, read
	// from its manifest at start-up: the thoughts are read on first use
	// (see summary.go). summaryBranches are the branch ids the summary
	// counts (under tailMu); broken is why the thoughts could not be read
	// ("" when they could; under mu).
	summary         atomic.Bool
	summaryBranches map[string]bool
	broken          string
}

// pendingFile is the latest content of a thought file still to be written.
type pendingFile struct {
	rel  string
	node storage.Node
}

func newSessionFiles(id, dir, partition string, wake func(), durability Durability) *sessionFiles {
	sf := &sessionFiles{id: id, dir: dir, partition: partition, wake: wake, files: newFileSet(),
		pending: map[string]pendingFile{}, unverified: map[string]bool{}, lock: newSessionLock(dir), durability: durability, jfd: -1}
	if durability == DurabilityBatch {
		sf.commit = newGroupCommit(func() error { return syncJournal(sf) })
	}
	return sf
}

// errNotOpen reports a write to a session this process does not hold the
// lock of; it would race with the process that does.
var errNotOpen = errors.New("the session is not open for writing in this process")

// fsyncJournal flushes the session's journal to the disk.
func (sf *sessionFiles) fsyncJournal() error { return fsyncPath(filepath.Join(sf.dir, journalName)) }

// syncJournal is how journals are synced (tests count the calls).
var syncJournal = (*sessionFiles).fsyncJournal

// WaitDurable returns once every journal line written so far is on disk
// (DurabilityBatch; the other modes have nothing to wait for).
func (sf *sessionFiles) WaitDurable() error {
	if sf.commit == nil {
		return nil
	}
	return sf.commit.wait()
}

func nodeRelPath(n *storage.Node) string {
	bid := ""
	if n.BranchID != nil {
		bid = *n.BranchID
	}
	return relPath(bid, n.Data.ThoughtNumber)
}

// journal appends a record with the next sequence number. Caller holds mu
// and the session's lock.
func (sf *sessionFiles) journal(r record) error {
	if !sf.owned {
		return errNotOpen
	}
	r.Seq = sf.seq + 1
	n, err := sf.appendJournal(r)
	if err != nil {
		return err
	}
	sf.seq++
	sf.jlen += n
	switch sf.durability {
	case DurabilityAlways:
		if err := syncJournal(sf); err != nil {
			return fmt.Errorf("the journal could not be synced to disk: %w", err)
		}
	case DurabilityBatch:
		sf.commit.wrote(sf.seq)
	}
	return nil
}

// maxOpenJournals bounds the journals kept open across appends, store-wide
// (openJournals): past it, an append opens and closes the journal itself.
const maxOpenJournals = 256

// openJournals counts the journals kept open (sessionFiles.jfd).
var openJournals atomic.Int64

// appendJournal appends r to the journal with one write, through the
// descriptor kept open while this process owns the session, and returns
// the length of the line. Caller holds mu and the session's lock.
func (sf *sessionFiles) appendJournal(r record) (int64, error) {
	// Its own encoder, not json.Marshal, which would check and compact
	// what it renders once more.
	line, err := r.MarshalJSON()
	if err != nil {
		return 0, err
	}
	path := filepath.Join(sf.dir, journalName)
	if sf.jfd < 0 {
		fd, err := sysfile.Open(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return 0, err
		}
		sf.jfd = fd
		openJournals.Add(1)
	}
	line = append(line, '\n')
	write := sysfile.WriteN
	if testHookJournalWrite != nil {
		write = testHookJournalWrite
	}
	if n, werr := write(sf.jfd, path, line); werr != nil {
		err = werr
		if n > 0 {
			// A line cut short (a full disk, say) would have the next
			// append follow it on the same line: it is taken back.
			err = errors.Join(err, sysfile.CutLast(sf.jfd, path, int64(n)))
		}
	}
	if err != nil || openJournals.Load() > maxOpenJournals {
		err = errors.Join(err, sf.closeJournal())
	}
	if err != nil {
		return 0, err
	}
	return int64(len(line)), nil
}

// testHookJournalWrite, when set by a test, writes journal lines instead
// of sysfile.WriteN.
var testHookJournalWrite func(fd int, path string, data []byte) (int, error)

// closeJournal closes the journal appendJournal kept open, if it is.
// Caller holds mu.
func (sf *sessionFiles) closeJournal() error {
	if sf.jfd < 0 {
		return nil
	}
	fd := sf.jfd
	sf.jfd = -1
	openJournals.Add(-1)
	return sysfile.Close(fd, filepath.Join(sf.dir, journalName))
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
	// Only the process that owns the session writes its manifest: a
	// reader (a session it loaded, or listed from its manifest and read on
	// first use) must not change its files; the next owner rewrites a
	// manifest that lags the journal when it takes the session over.
	writeManifest := sf.manifestDirty && sf.owned
	sf.manifestDirty = false
	main, branches := sf.files.lists()
	m := manifest{ID: sf.id, Version: manifestVersion, ThoughtFiles: main, BranchFiles: branches, Metadata: sf.meta, JournalSeq: sf.seq}
	if sf.jlen > 0 {
		// The length this process last knew with seq; a reader whose
		// journal has another length reads the session whole.
		m.JournalBytes = sf.jlen
	}
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

// problem records a load problem once.
func (sf *sessionFiles) problem(msg string) {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if !slices.Contains(sf.loadErrors, msg) {
		sf.loadErrors = append(sf.loadErrors, msg)
	}
}

// problems returns the load problems recorded so far.
func (sf *sessionFiles) problems() []string {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	return slices.Clone(sf.loadErrors)
}

// check reports the state of the session's files: the manifest must parse
// and every thought file exist. A file still waiting in pending is not
// missing: memory holds it and the background writer will write it. The
// check holds writeMu, so no batch is half written while it looks.
func (sf *sessionFiles) check() Integrity {
	sf.writeMu.Lock()
	defer sf.writeMu.Unlock()
	res := validIntegrity()
	add := func(msg string) {
		if !slices.Contains(res.Errors, msg) {
			res.Errors = append(res.Errors, msg)
		}
	}
	mpath := filepath.Join(sf.dir, "manifest.json")
	var m manifest
	if _, err := os.Stat(mpath); err != nil {
		res.ManifestExists, res.ManifestValid = false, false
		add("Manifest not found: " + mpath)
	} else if err := readJSON(mpath, &m); err != nil {
		res.ManifestValid = false
		add("Manifest unreadable: " + err.Error())
	}
	sf.mu.Lock()
	main, branches := sf.files.lists()
	waiting := make(map[string]bool, len(sf.pending))
	for _, p := range sf.pending {
		waiting[p.rel] = true
	}
	loadErrors := slices.Clone(sf.loadErrors)
	sf.mu.Unlock()
	for _, name := range main {
		if _, err := os.Stat(filepath.Join(sf.dir, name)); err != nil && !waiting[name] {
			res.MissingThoughtFiles = append(res.MissingThoughtFiles, name)
			add("Missing thought file: " + name)
		}
	}
	for _, bid := range branches.order {
		for _, name := range branches.files[bid] {
			rel := "branches/" + bid + "/" + name
			if _, err := os.Stat(filepath.Join(sf.dir, rel)); err != nil && !waiting[rel] {
				res.MissingBranchFiles[bid] = append(res.MissingBranchFiles[bid], name)
				add("Missing branch thought file: " + bid + "/" + name)
			}
		}
	}
	for _, e := range loadErrors {
		add(e)
	}
	res.Valid = len(res.Errors) == 0
	return res
}
