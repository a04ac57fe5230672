package fsstore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// loaded is the result of reading one session directory.
type loaded struct {
	sf    *sessionFiles
	chain *storage.Chain
	// damage is why the session could not be loaded at all ("" when it was).
	damage string
}

// loadSession reads one session directory into a chain. When no other
// process holds the session's lock it takes it for the load, removes stray
// temporary files, cuts a torn last journal line and schedules the rewrite
// of every file the journal knows better than the disk; otherwise the
// session is only read: its owner is writing it. A session that cannot be
// read while another process owns it is skipped (skip true): it is being
// created or written and is read again later.
func (s *Store) loadSession(dir, partition string) (l loaded, skip bool) {
	id := filepath.Base(dir)
	sf := newSessionFiles(id, dir, partition, s.wake, s.durability)
	owned, err := sf.lock.acquire(0)
	if err != nil {
		s.log.Warn("cannot lock session", "session", id, "err", err)
	}
	sf.owned = owned
	if owned {
		s.removeSessionTemps(dir)
	}
	chain, damage := s.readChain(sf)
	if chain == nil {
		if owned {
			_ = sf.lock.release()
		}
		return loaded{damage: damage}, !owned
	}
	sf.chain = chain
	if owned {
		s.verify(sf)
		if !sf.hasWork() {
			// Nothing to repair: leave the session to whoever opens it.
			s.disown(sf)
		}
	}
	return loaded{sf: sf, chain: chain}, false
}

// readChain reads a session's manifest and journal (or, without a journal,
// its thought files) into a new chain. When this process owns the session
// it also cuts a torn last journal line and notes which files to rewrite.
// It returns why the session cannot be read at all when it cannot.
func (s *Store) readChain(sf *sessionFiles) (*storage.Chain, string) {
	dir, owned := sf.dir, sf.owned
	var m manifest
	merr := readJSON(filepath.Join(dir, "manifest.json"), &m)
	tail, jerr := readJournalFrom(dir, 0)
	var chain *storage.Chain
	switch {
	case errors.Is(jerr, errNoJournal):
		if merr != nil {
			return nil, manifestProblem(dir, merr) + " and there is no journal"
		}
		chain = s.loadFromFiles(sf, m)
	case jerr != nil:
		return nil, "Journal unreadable: " + jerr.Error()
	default:
		if tail.torn > 0 && tail.corrupt == nil && owned {
			s.dropTorn(sf, tail.consumed, tail.torn)
		}
		materialized := 0
		if merr == nil {
			materialized = m.JournalSeq
		}
		chain = s.apply(sf, nil, tail.records, materialized)
		sf.offset = tail.consumed
		if chain == nil {
			if merr != nil {
				return nil, "journal has no session record and " + manifestProblem(dir, merr)
			}
			// The session record was lost (torn first write): fall back to the manifest.
			chain = s.loadFromFiles(sf, m)
			break
		}
		if merr == nil && m.Metadata.LastAccessedAt > chain.Session().LastAccessedAt {
			// Reads record the access time in memory; it reached the
			// manifest with a later write.
			sess := chain.Session()
			sess.LastAccessedAt = m.Metadata.LastAccessedAt
			chain.SetMetadata(sess)
		}
		sess := chain.Session()
		sf.mu.Lock()
		sf.setMeta(&sess)
		if merr != nil || m.JournalSeq != sf.seq {
			sf.manifestDirty = true
		}
		sf.mu.Unlock()
		if tail.corrupt != nil {
			sf.problem("Journal damaged: " + tail.corrupt.Error() + "; thoughts recorded after it may be missing")
			s.salvage(sf, chain, m)
		}
	}
	if owned {
		// The journal's length goes into the manifest at the session's
		// next write (a start-up writes nothing for it: reading a session
		// must not change its files), and from then on start-ups list
		// the session from its manifest alone.
		sf.mu.Lock()
		sf.jlen = journalSize(dir)
		sf.mu.Unlock()
	}
	return chain, ""
}

// dropTorn cuts the torn last line of an owned session's journal and
// reports it: the append never completed, so its change was never
// acknowledged.
func (s *Store) dropTorn(sf *sessionFiles, complete int64, torn int) {
	if err := dropTornTail(sf.dir, complete); err != nil {
		s.log.Warn("cannot cut the torn last line of the journal", "session", sf.id, "err", err)
		return
	}
	s.log.Warn("dropped the torn last line of the journal: a write that never completed, never acknowledged",
		"session", sf.id, "bytes", torn)
	s.mu.Lock()
	s.tornDropped++
	s.mu.Unlock()
}

func manifestProblem(dir string, err error) string {
	if errors.Is(err, os.ErrNotExist) {
		return "Manifest not found: " + filepath.Join(dir, "manifest.json")
	}
	return "Manifest unreadable: " + err.Error()
}

// verify schedules the rewrite of every unverified node whose file does not
// hold what memory holds. Only the session's owner calls it.
func (s *Store) verify(sf *sessionFiles) {
	sf.mu.Lock()
	ids := sf.unverified
	sf.unverified = map[string]bool{}
	sf.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	queued := 0
	sf.chain.Freeze(func(order []storage.Node) {
		for _, n := range order {
			if ids[n.ID] && !fileMatches(filepath.Join(sf.dir, nodeRelPath(&n)), n) {
				sf.queue(n)
				queued++
			}
		}
	})
	s.mu.Lock()
	s.repaired += queued
	s.mu.Unlock()
}

// fileMatches reports whether the file at path holds exactly node n.
func fileMatches(path string, n storage.Node) bool {
	want, err := jsonx.Pretty(n)
	if err != nil {
		return false
	}
	have, err := os.ReadFile(path)
	return err == nil && bytes.Equal(have, want)
}

// loadFromFiles loads a session that has no journal (written by the original
// server, or by a build without journals) from its manifest and thought
// files. A clean session gets a journal when this process owns it, so later
// starts replay it; a damaged one keeps its problems visible to the
// integrity check.
func (s *Store) loadFromFiles(sf *sessionFiles, m manifest) *storage.Chain {
	sess := storage.Session{ID: sf.id, Title: m.Metadata.Title, Description: m.Metadata.Description, Tags: m.Metadata.Tags,
		PartitionPath: sf.partition, CreatedAt: m.Metadata.CreatedAt, UpdatedAt: m.Metadata.UpdatedAt,
		LastAccessedAt: m.Metadata.LastAccessedAt}
	if sess.Tags == nil {
		sess.Tags = []string{}
	}
	if sess.LastAccessedAt == "" {
		sess.LastAccessedAt = sess.CreatedAt
	}
	if m.ID != "" && m.ID != sf.id {
		sf.problem(fmt.Sprintf("Manifest id %s does not match directory %s", m.ID, sf.id))
	}
	chain := storage.NewChain(sess, sf, s.now)
	var loadedNodes []storage.Node
	for _, rel := range manifestFiles(m) {
		if n, ok := s.loadFile(sf, rel); ok {
			chain.Load(n)
			loadedNodes = append(loadedNodes, n)
		}
	}
	sf.mu.Lock()
	sf.setMeta(&sess)
	sf.mu.Unlock()
	if len(sf.problems()) > 0 || !sf.owned {
		return chain
	}
	if _, err := os.Stat(filepath.Join(sf.dir, journalName)); err != nil {
		sf.mu.Lock()
		err := sf.journal(record{Op: opSession, Session: &sess})
		for i := 0; err == nil && i < len(loadedNodes); i++ {
			n := loadedNodes[i]
			n.Next = []string{}
			err = sf.journal(record{Op: opAdd, File: nodeRelPath(&n), Node: &n})
		}
		sf.mu.Unlock()
		if err != nil {
			s.log.Warn("cannot write a journal for the session", "session", sf.id, "err", err)
		}
	}
	for _, n := range chain.CreationOrder() {
		if !fileMatches(filepath.Join(sf.dir, nodeRelPath(&n)), n) {
			sf.queue(n)
		}
	}
	sf.manifestDirty = true
	return chain
}

// loadFile reads one thought file listed by a manifest and records it in
// the session's file set; problems are remembered as load errors.
func (s *Store) loadFile(sf *sessionFiles, rel string) (storage.Node, bool) {
	bid := ""
	if after, ok := strings.CutPrefix(rel, "branches/"); ok {
		bid = filepath.Dir(after)
	}
	sf.mu.Lock()
	sf.files.add(bid, filepath.Base(rel))
	sf.mu.Unlock()
	var n storage.Node
	if err := readJSON(filepath.Join(sf.dir, rel), &n); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			sf.problem("Missing thought file: " + rel)
		} else {
			sf.problem("Unreadable thought file: " + rel + " (" + err.Error() + ")")
		}
		return n, false
	}
	if !strings.HasPrefix(n.ID, sf.id+":") {
		sf.problem("Thought file " + rel + " belongs to another session (" + n.ID + ")")
		return n, false
	}
	if n.Next == nil {
		n.Next = []string{}
	}
	return n, true
}

// salvage loads thoughts listed in the manifest that a damaged journal lost.
func (s *Store) salvage(sf *sessionFiles, chain *storage.Chain, m manifest) {
	have := map[string]bool{}
	for _, n := range chain.CreationOrder() {
		have[nodeRelPath(&n)] = true
	}
	for _, rel := range manifestFiles(m) {
		if have[rel] {
			continue
		}
		if n, ok := s.loadFile(sf, rel); ok {
			chain.Load(n)
		}
	}
}

// manifestFiles lists a manifest's thought files, main chain first, as paths
// relative to the session directory.
func manifestFiles(m manifest) []string {
	var out []string
	out = append(out, m.ThoughtFiles...)
	for _, b := range m.BranchFiles.order {
		for _, f := range m.BranchFiles.files[b] {
			out = append(out, "branches/"+b+"/"+f)
		}
	}
	return out
}
