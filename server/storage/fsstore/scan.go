package fsstore

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/tmpfile"
)

// loadAll loads every session of the project at start-up and reports what
// it found.
func (s *Store) loadAll() error {
	if _, err := os.ReadDir(s.sessionsDir); err != nil {
		return err
	}
	s.removedT += removeStrayTemps(s.sessionsDir)
	s.removedT += removeStrayTemps(filepath.Join(s.contextsDir, contextTempDir))
	s.starting = true
	s.scan(true)
	s.starting = false
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

// scan walks the project's sessions directory, partitioned or not, and
// loads every session this store does not know yet: at start-up all of
// them, later the ones other processes created. Later scans read only the
// directories that changed since they were last read (see dirMemory).
// startup also removes stray temporary files of the partitions.
func (s *Store) scan(startup bool) {
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	entries, ok := s.dirs.entries(s.sessionsDir, startup)
	if !ok {
		return
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(s.sessionsDir, e.Name())
		mtime, unchanged := s.dirs.unchanged(dir)
		if unchanged && !startup {
			continue
		}
		readAt := time.Now()
		settled := true
		if isSessionDir(dir) || hasThoughtFiles(dir) {
			settled = s.loadDir(dir, "")
			s.dirs.remember(dir, mtime, readAt, settled)
			continue
		}
		if startup {
			s.removedT += removeStrayTemps(dir)
		}
		subs, err := os.ReadDir(dir)
		if err != nil {
			s.log.Warn("cannot read partition", "dir", dir, "err", err)
			continue
		}
		var dirs []string
		for _, sub := range subs {
			if sub.IsDir() {
				dirs = append(dirs, filepath.Join(dir, sub.Name()))
			}
		}
		summaries := s.readSummaries(dirs)
		for i, d := range dirs {
			settled = s.loadDirWith(d, e.Name(), &summaries[i]) && settled
		}
		s.dirs.remember(dir, mtime, readAt, settled)
	}
}

// loadDir loads the session in dir unless the store knows it already
// (loaded, or known to be damaged). A directory with thought files but
// neither manifest nor journal is reported as damaged. It reports whether
// the directory is settled: known, damaged or loaded now, rather than
// left for a later scan (a session another process is still creating).
// Caller holds loadMu.
func (s *Store) loadDir(dir, partition string) bool {
	return s.loadDirWith(dir, partition, nil)
}

// loadDirWith is loadDir with the session's summary read already (nil: read
// it now). A session whose manifest is up to date with its journal is
// registered from the manifest alone (see summary.go).
func (s *Store) loadDirWith(dir, partition string, pre *summaryRead) bool {
	id := filepath.Base(dir)
	if s.registered(id) {
		return true
	}
	if pre == nil {
		pre = &summaryRead{}
		pre.m, pre.ok = readSummary(dir)
	}
	if pre.ok {
		// Stray temporary files go at start-up (D15) whether or not the
		// session is read: their names say whether their writer lives.
		// Start-up leaves it to sweepStartupTemps, after it: reading every
		// session's directories would be most of its work.
		if s.starting {
			s.unswept = append(s.unswept, dir)
		} else {
			s.removeSessionTemps(dir)
		}
		sf := s.summaryOf(dir, partition, pre.m)
		s.mu.Lock()
		s.files[id] = sf
		s.mu.Unlock()
		s.reg.Add(sf.chain)
		return true
	}
	if !isSessionDir(dir) {
		if hasThoughtFiles(dir) {
			s.mu.Lock()
			s.damaged[id] = "Manifest and journal not found: " + dir + " holds thought files but neither manifest.json nor " + journalName
			s.mu.Unlock()
			return true
		}
		return false
	}
	l, skip := s.loadSession(dir, partition)
	if skip {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.sf == nil {
		s.damaged[id] = l.damage
		return true
	}
	s.files[id] = l.sf
	s.reg.Add(l.chain)
	s.noteDamageLocked(l.sf)
	return true
}

// registered reports whether the store has the session, loaded or known to
// be damaged, without looking on disk.
func (s *Store) registered(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, known := s.files[id]
	_, bad := s.damaged[id]
	return known || bad
}

// summaryRead is a session's manifest as readSummary read it.
type summaryRead struct {
	m  manifestSummary
	ok bool
}

// readSummaries reads the manifests of the session directories the store
// does not know yet, several at a time: at start-up that is every session.
func (s *Store) readSummaries(dirs []string) []summaryRead {
	out := make([]summaryRead, len(dirs))
	var todo []int
	for i, d := range dirs {
		if !s.registered(filepath.Base(d)) {
			todo = append(todo, i)
		}
	}
	workers := min(len(todo)/64+1, 2*runtime.GOMAXPROCS(0))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= len(todo) {
					return
				}
				i := todo[k]
				out[i].m, out[i].ok = readSummary(dirs[i])
			}
		}()
	}
	wg.Wait()
	return out
}

// noteDamageLocked records the session's load problems as damage. Caller
// holds s.mu.
func (s *Store) noteDamageLocked(sf *sessionFiles) {
	if p := sf.problems(); len(p) > 0 {
		s.damaged[sf.id] = strings.Join(p, "; ")
	}
}

func isSessionDir(dir string) bool {
	for _, name := range []string{"manifest.json", journalName} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// thoughtFilePattern matches the name of a thought file.
var thoughtFilePattern = regexp.MustCompile(`^[0-9]{3,}\.json$`)

// hasThoughtFiles reports whether dir holds thought files directly or in
// branches/: it is a session directory even without manifest and journal.
func hasThoughtFiles(dir string) bool {
	has := func(d string) bool {
		entries, err := os.ReadDir(d)
		if err != nil {
			return false
		}
		for _, e := range entries {
			if !e.IsDir() && thoughtFilePattern.MatchString(e.Name()) {
				return true
			}
		}
		return false
	}
	if has(dir) {
		return true
	}
	branches, err := os.ReadDir(filepath.Join(dir, "branches"))
	if err != nil {
		return false
	}
	for _, b := range branches {
		if b.IsDir() && has(filepath.Join(dir, "branches", b.Name())) {
			return true
		}
	}
	return false
}

// removeSessionTemps removes the stray temporary files of the session in
// dir and of its branches.
func (s *Store) removeSessionTemps(dir string) {
	n := removeSessionTempsWith(dir, removeStrayTemps)
	s.mu.Lock()
	s.removedT += n
	s.mu.Unlock()
}

// removeSessionTempsWith removes the temporary files of the session in dir
// and of its branches with remove, and returns how many it removed.
func removeSessionTempsWith(dir string, remove func(string) int) int {
	n := remove(dir)
	if bdirs, err := os.ReadDir(filepath.Join(dir, "branches")); err == nil {
		for _, b := range bdirs {
			if b.IsDir() {
				n += remove(filepath.Join(dir, "branches", b.Name()))
			}
		}
	}
	return n
}

// sweepStartupTemps removes the stray temporary files of the sessions
// start-up registered from their manifests (unswept), in the background
// while the store serves, and logs how many it removed. It spares this
// process's own files, which its writes may be creating meanwhile (a dead
// process's file that happens to carry this process's id waits for the
// next start-up). Close waits for it.
func (s *Store) sweepStartupTemps(dirs []string) {
	defer close(s.swept)
	n := 0
	for _, dir := range dirs {
		select {
		case <-s.sweepStop:
			return
		default:
		}
		n += removeSessionTempsWith(dir, tmpfile.RemoveStrayOfOthers)
	}
	if n > 0 {
		s.log.Info("removed stray temporary files of the sessions read from their manifests", "count", n)
	}
}

// sessionIDPattern is what a session directory name may look like; other
// ids are never looked up on disk. It is compiled when first used: its
// bounded repetition makes it thousands of allocations, which every server
// process would pay at start (over stdio every client starts one).
var sessionIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`) })

// discover looks for a session this store does not know, which another
// process may have created since the start, and loads it.
func (s *Store) discover(id string) *sessionFiles {
	if !sessionIDPattern().MatchString(id) {
		return nil
	}
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	if sf := s.filesOf(id); sf != nil {
		return sf
	}
	candidates, _ := filepath.Glob(filepath.Join(s.sessionsDir, "*", id))
	for _, dir := range append([]string{filepath.Join(s.sessionsDir, id)}, candidates...) {
		if !isSessionDir(dir) {
			continue
		}
		partition := filepath.Base(filepath.Dir(dir))
		if filepath.Dir(dir) == s.sessionsDir {
			partition = ""
		}
		s.loadDir(dir, partition)
		if sf := s.filesOf(id); sf != nil {
			return sf
		}
	}
	return nil
}

func (s *Store) filesOf(id string) *sessionFiles {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.files[id]
}

// find returns a session's files and chain, loading it when another process
// created it since the start.
func (s *Store) find(id string) (*sessionFiles, *storage.Chain, error) {
	sf := s.filesOf(id)
	if sf == nil {
		sf = s.discover(id)
	}
	if sf == nil {
		return nil, nil, storage.NotFound(id)
	}
	s.load(sf)
	if sf.brokenReason() != "" {
		// Like a session start-up could not read: Integrity says why.
		return nil, nil, storage.NotFound(id)
	}
	return sf, sf.chain, nil
}

// refresh reads what another process appended to the journal of a session
// this process does not own.
func (s *Store) refresh(sf *sessionFiles) {
	sf.mu.Lock()
	owned := sf.owned
	sf.mu.Unlock()
	if owned {
		return
	}
	sf.tailMu.Lock()
	defer sf.tailMu.Unlock()
	if sf.chain == nil || journalSize(sf.dir) <= sf.offset {
		return
	}
	tail, err := readJournalFrom(sf.dir, sf.offset)
	if err != nil {
		return
	}
	if sf.summary.Load() {
		s.refreshSummary(sf, tail.records)
	} else {
		s.apply(sf, sf.chain, tail.records, 0)
	}
	sf.offset += tail.consumed
	if tail.corrupt != nil {
		sf.problem("Journal damaged: " + tail.corrupt.Error() + "; thoughts recorded after it may be missing")
	}
	s.mu.Lock()
	s.noteDamageLocked(sf)
	s.mu.Unlock()
}

// Get returns a session by id, with what other processes appended to it
// since it was last read.
func (s *Store) Get(id string) (*storage.Chain, error) {
	sf, c, err := s.find(id)
	if err != nil {
		return nil, err
	}
	s.refresh(sf)
	return c, nil
}

// List returns matching sessions, most recently updated first, including
// the sessions other processes created or changed since the start (see
// rescan).
func (s *Store) List(f storage.Filter) []storage.Session {
	if s.rescanDue() {
		s.rescan()
	}
	return s.reg.List(f)
}
