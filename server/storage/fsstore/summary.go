package fsstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// Sessions are loaded lazily. At start-up a session whose manifest is up to
// date with its journal (the manifest's journalBytes is the journal's
// length: nothing was journaled after the files were written, no torn
// line) is registered from its manifest alone, as a summary: metadata and
// counts, no thoughts, no lock taken, nothing else read. Its journal is
// read the first time the session is used (Get, Open, Integrity), with the
// same checks as at start-up; damage inside the journal is reported then.
// Every other session (a journal ahead of its manifest after a crash, a
// torn or missing journal, a missing or unreadable manifest, a manifest of
// the original layout) is read whole at start-up, as before, so crash
// recovery and manifest-level damage are handled and reported at start.

// manifestSummary is what a summary needs of a manifest: the manifest
// without its thought files' names, which start-up only counts.
type manifestSummary struct {
	ID           string           `json:"id"`
	ThoughtFiles stringCount      `json:"thoughtFiles"`
	BranchFiles  branchFiles      `json:"branchFiles"`
	Metadata     manifestMetadata `json:"metadata"`
	JournalSeq   int              `json:"journalSeq,omitempty"`
	JournalBytes int64            `json:"journalBytes,omitempty"`
}

// stringCount decodes a JSON array of strings as the number of its
// elements, without making the strings: start-up reads every session's
// manifest, and decoding its file names was most of that work.
type stringCount int

// UnmarshalJSON counts the strings of the array (null: none); anything but
// strings in it is an error, as it would be for a []string.
func (n *stringCount) UnmarshalJSON(data []byte) error {
	*n = 0
	if string(data) == "null" {
		return nil
	}
	inString, escaped, opened := false, false, false
	for _, c := range data {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			if !inString {
				*n++
			}
			inString = !inString
		case inString:
		case c == '[' && !opened:
			opened = true
		case c == ']' || c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t':
		default:
			return fmt.Errorf("thoughtFiles: %q in a list of file names", c)
		}
	}
	if !opened {
		return errors.New("thoughtFiles is not a list")
	}
	return nil
}

// readSummary reads the manifest of the session in dir and reports whether
// the session can be registered from it alone.
func readSummary(dir string) (manifestSummary, bool) {
	var m manifestSummary
	data, err := readSmallFile(filepath.Join(dir, "manifest.json"))
	if err != nil || json.Unmarshal(data, &m) != nil {
		return m, false
	}
	if m.ID != filepath.Base(dir) || m.JournalSeq <= 0 || m.JournalBytes <= 0 {
		return m, false
	}
	fi, err := os.Stat(filepath.Join(dir, journalName))
	return m, err == nil && fi.Mode().IsRegular() && fi.Size() == m.JournalBytes
}

// summaryOf returns the session files and summary chain of the session in
// dir, from its manifest m.
func (s *Store) summaryOf(dir, partition string, m manifestSummary) *sessionFiles {
	id := filepath.Base(dir)
	sf := newSessionFiles(id, dir, partition, s.wake, s.durability)
	md := m.Metadata
	sess := storage.Session{ID: id, Title: md.Title, Description: md.Description, Tags: md.Tags,
		ThoughtCount: int(m.ThoughtFiles), BranchCount: len(m.BranchFiles.order), PartitionPath: partition,
		CreatedAt: md.CreatedAt, UpdatedAt: md.UpdatedAt, LastAccessedAt: md.LastAccessedAt}
	if sess.Tags == nil {
		sess.Tags = []string{}
	}
	if sess.LastAccessedAt == "" {
		sess.LastAccessedAt = sess.CreatedAt
	}
	sf.seq, sf.offset = m.JournalSeq, m.JournalBytes
	sf.setMeta(&sess)
	if len(m.BranchFiles.order) > 0 {
		sf.summaryBranches = make(map[string]bool, len(m.BranchFiles.order))
		for _, b := range m.BranchFiles.order {
			sf.summaryBranches[b] = true
		}
	}
	sf.summary.Store(true)
	sf.chain = storage.NewChain(sess, sf, s.now)
	return sf
}

// load reads the thoughts of a session registered as a summary, once; the
// chain is filled in one step. Problems found are reported as damage, as
// start-up reports them for the sessions it reads whole.
func (s *Store) load(sf *sessionFiles) {
	if !sf.summary.Load() {
		return
	}
	sf.tailMu.Lock()
	defer sf.tailMu.Unlock()
	if !sf.summary.Load() {
		return
	}
	sf.mu.Lock()
	sf.seq, sf.files, sf.unverified = 0, newFileSet(), map[string]bool{}
	sf.mu.Unlock()
	chain, damage := s.readChain(sf)
	if chain == nil {
		sf.mu.Lock()
		sf.broken = damage
		sf.mu.Unlock()
		s.mu.Lock()
		s.damaged[sf.id] = damage
		s.mu.Unlock()
		s.log.Warn("damaged session", "session", sf.id, "problem", damage)
		return
	}
	sf.chain.Fill(chain)
	sf.summaryBranches = nil
	sf.summary.Store(false)
	if p := sf.problems(); len(p) > 0 {
		s.mu.Lock()
		s.noteDamageLocked(sf)
		reason := s.damaged[sf.id]
		s.mu.Unlock()
		s.log.Warn("damaged session", "session", sf.id, "problem", reason)
	}
}

// brokenReason returns why a summary's thoughts could not be read ("" when
// they could, or were not read yet).
func (sf *sessionFiles) brokenReason() string {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	return sf.broken
}

// refreshSummary applies to a summary the journal records another process
// appended: counts, update time and metadata change as they would for the
// whole session. Caller holds tailMu.
func (s *Store) refreshSummary(sf *sessionFiles, records []record) {
	sess := sf.chain.Session()
	for _, r := range records {
		sf.mu.Lock()
		if r.Seq > sf.seq {
			sf.seq = r.Seq
		}
		sf.mu.Unlock()
		switch r.Op {
		case opMeta:
			if m := r.Session; m != nil {
				sess.Title, sess.Description, sess.Tags = m.Title, m.Description, m.Tags
				sess.CreatedAt, sess.UpdatedAt, sess.LastAccessedAt = m.CreatedAt, m.UpdatedAt, m.LastAccessedAt
			}
		case opAdd:
			n := r.Node
			if n == nil {
				continue
			}
			if n.BranchID == nil {
				sess.ThoughtCount++
			} else if !sf.summaryBranches[*n.BranchID] {
				if sf.summaryBranches == nil {
					sf.summaryBranches = map[string]bool{}
				}
				sf.summaryBranches[*n.BranchID] = true
				sess.BranchCount++
			}
			if n.Data.Timestamp > sess.UpdatedAt {
				sess.UpdatedAt = n.Data.Timestamp
			}
		}
	}
	sf.chain.SetSummary(sess)
}
