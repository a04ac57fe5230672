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

// loadAll scans the project's sessions directory, partitioned or not, and
// loads every session in it.
func (s *Store) loadAll() error {
	entries, err := os.ReadDir(s.sessionsDir)
	if err != nil {
		return err
	}
	s.removedT += removeStrayTemps(s.sessionsDir)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(s.sessionsDir, e.Name())
		if isSessionDir(dir) {
			s.loadSession(dir, "")
			continue
		}
		s.removedT += removeStrayTemps(dir)
		subs, err := os.ReadDir(dir)
		if err != nil {
			s.log.Warn("cannot read partition", "dir", dir, "err", err)
			continue
		}
		for _, sub := range subs {
			sdir := filepath.Join(dir, sub.Name())
			if sub.IsDir() && isSessionDir(sdir) {
				s.loadSession(sdir, e.Name())
			}
		}
	}
	if s.removedT > 0 {
		s.log.Info("removed stray temporary files", "count", s.removedT)
	}
	if s.repaired > 0 {
		s.log.Info("thought files to rewrite from the journals", "count", s.repaired)
	}
	for id, reason := range s.damaged {
		s.log.Warn("damaged session", "session", id, "problem", reason)
	}
	return nil
}

func isSessionDir(dir string) bool {
	for _, name := range []string{"manifest.json", journalName} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

func (s *Store) removeSessionTemps(dir string) {
	s.removedT += removeStrayTemps(dir)
	if bdirs, err := os.ReadDir(filepath.Join(dir, "branches")); err == nil {
		for _, b := range bdirs {
			if b.IsDir() {
				s.removedT += removeStrayTemps(filepath.Join(dir, "branches", b.Name()))
			}
		}
	}
}

// loadSession reads one session directory into a chain.
func (s *Store) loadSession(dir, partition string) {
	id := filepath.Base(dir)
	s.removeSessionTemps(dir)
	var m manifest
	merr := readJSON(filepath.Join(dir, "manifest.json"), &m)
	records, jerr := readJournal(dir)
	sf := newSessionFiles(id, dir, partition, s.wake)
	var chain *storage.Chain
	switch {
	case errors.Is(jerr, errNoJournal):
		if merr != nil {
			s.damaged[id] = manifestProblem(dir, merr)
			return
		}
		chain = s.loadFromFiles(sf, m)
	default:
		chain = s.replay(sf, records, m, merr)
		if chain == nil {
			s.damaged[id] = "journal has no session record and " + manifestProblem(dir, merr)
			return
		}
		if jerr != nil {
			sf.loadErrors = append(sf.loadErrors, "Journal damaged: "+jerr.Error()+"; thoughts recorded after it may be missing")
			s.salvage(sf, chain, m)
		}
	}
	s.files[id] = sf
	s.reg.Add(chain)
	if len(sf.loadErrors) > 0 {
		s.damaged[id] = strings.Join(sf.loadErrors, "; ")
	}
}

func manifestProblem(dir string, err error) string {
	if errors.Is(err, os.ErrNotExist) {
		return "Manifest not found: " + filepath.Join(dir, "manifest.json")
	}
	return "Manifest unreadable: " + err.Error()
}

// replay rebuilds a session from its journal, then schedules the rewrite of
// every file the journal knows better than the disk.
func (s *Store) replay(sf *sessionFiles, records []record, m manifest, merr error) *storage.Chain {
	var chain *storage.Chain
	check := map[string]bool{}
	for _, r := range records {
		sf.seq = r.Seq
		switch r.Op {
		case opSession:
			sess := *r.Session
			sess.PartitionPath = sf.partition
			chain = storage.NewChain(sess, sf, s.now)
			sf.setMeta(&sess)
		case opMeta:
			if chain != nil {
				chain.SetMetadata(*r.Session)
				sf.setMeta(r.Session)
			}
		case opAdd:
			if chain == nil || r.Node == nil {
				continue
			}
			chain.Load(*r.Node)
			bid := ""
			if r.Node.BranchID != nil {
				bid = *r.Node.BranchID
			}
			sf.files.add(bid, filepath.Base(r.File))
			if merr != nil || r.Seq > m.JournalSeq {
				check[r.Node.ID] = true
				if r.Node.Prev != nil {
					check[*r.Node.Prev] = true
				}
			}
		case opRewrite:
			if chain != nil && r.Node != nil {
				chain.Reload(*r.Node)
				if merr != nil || r.Seq > m.JournalSeq {
					check[r.Node.ID] = true
				}
			}
		}
	}
	if chain == nil {
		if merr != nil {
			return nil
		}
		// The session record was lost (torn first write): fall back to the manifest.
		chain = s.loadFromFiles(sf, m)
		return chain
	}
	sess := chain.Session()
	sf.setMeta(&sess)
	if merr != nil || m.JournalSeq != sf.seq {
		sf.manifestDirty = true
	}
	for _, n := range chain.CreationOrder() {
		if check[n.ID] && !fileMatches(filepath.Join(sf.dir, nodeRelPath(&n)), n) {
			sf.queue(n)
			s.repaired++
		}
	}
	return chain
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
// files. A clean session gets a journal, so later starts replay it; a damaged
// one keeps its problems visible to the integrity check.
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
		sf.loadErrors = append(sf.loadErrors, fmt.Sprintf("Manifest id %s does not match directory %s", m.ID, sf.id))
	}
	chain := storage.NewChain(sess, sf, s.now)
	var loaded []storage.Node
	for _, rel := range manifestFiles(m) {
		if n, ok := s.loadFile(sf, rel); ok {
			chain.Load(n)
			loaded = append(loaded, n)
		}
	}
	sf.setMeta(&sess)
	if len(sf.loadErrors) > 0 {
		return chain
	}
	if _, err := os.Stat(filepath.Join(sf.dir, journalName)); err != nil {
		sf.mu.Lock()
		err := sf.journal(record{Op: opSession, Session: &sess})
		for i := 0; err == nil && i < len(loaded); i++ {
			n := loaded[i]
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
	if strings.HasPrefix(rel, "branches/") {
		bid = strings.TrimPrefix(filepath.Dir(rel), "branches/")
	}
	sf.files.add(bid, filepath.Base(rel))
	var n storage.Node
	if err := readJSON(filepath.Join(sf.dir, rel), &n); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			sf.loadErrors = append(sf.loadErrors, "Missing thought file: "+rel)
		} else {
			sf.loadErrors = append(sf.loadErrors, "Unreadable thought file: "+rel+" ("+err.Error()+")")
		}
		return n, false
	}
	if !strings.HasPrefix(n.ID, sf.id+":") {
		sf.loadErrors = append(sf.loadErrors, "Thought file "+rel+" belongs to another session ("+n.ID+")")
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
