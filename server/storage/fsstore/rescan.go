package fsstore

import (
	"os"
	"time"
)

// rescanEvery bounds how often List looks on disk for the sessions other
// processes created or changed.
const rescanEvery = time.Second

// refreshInline is the largest number of sessions whose journals List
// checks before answering; above it the check runs in the background (one
// stat per session costs milliseconds per thousand sessions).
var refreshInline = 256

// rescanDue reports whether List should look on disk now.
func (s *Store) rescanDue() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now := time.Now(); s.lastRescan.IsZero() || now.Sub(s.lastRescan) >= rescanEvery {
		s.lastRescan = now
		return true
	}
	return false
}

// rescan loads the sessions other processes created since the last scan
// (reading only the directories that changed, see dirMemory), then reads
// what other processes appended to the journals of the sessions this
// process does not own. With few sessions that is done before List answers;
// with more, in the background (at most one pass at a time), so that a
// list costs no more than the directories that changed: what other
// processes appended to sessions already known shows in a list at most
// rescanEvery plus one pass later (Get always reads it first).
//
// A store alone on its project since its last look skips it
// (processes.go). What the register shows is read before a look starts,
// and kept only when the look runs: a look covers everything written
// before it.
func (s *Store) rescan() {
	now := s.procs.state()
	s.mu.Lock()
	quiet := s.lastLook.quiet(now)
	s.mu.Unlock()
	if quiet {
		return
	}
	s.looks.Add(1)
	s.scan(false)
	all := s.sessions()
	if len(all) <= refreshInline {
		for _, sf := range all {
			s.refresh(sf)
		}
		s.mu.Lock()
		s.lastLook = now
		s.mu.Unlock()
		return
	}
	s.mu.Lock()
	if s.refreshing || s.closed {
		s.mu.Unlock()
		return
	}
	s.refreshing = true
	s.lastLook = now
	s.refreshes.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.refreshes.Done()
		for _, sf := range all {
			s.refresh(sf)
		}
		s.mu.Lock()
		s.refreshing = false
		s.mu.Unlock()
	}()
}

// dirMemory remembers, for each directory a scan read (the sessions
// directory and its partitions), its modification time before the read,
// and whether the read saw everything up to that time; a later scan reads
// the directory again only when its modification time differs. Creating or
// removing an entry (a session directory) changes the time of its parent.
//
// A read is not trusted when the directory changed less than
// mtimeSettle before it (a later change could carry the same coarse time
// stamp), or when it left a session for later (one being created).
type dirMemory struct {
	seen map[string]dirStamp
	// top holds the entries of the sessions directory as last read.
	top []os.DirEntry
}

// dirStamp is what dirMemory keeps of one directory.
type dirStamp struct {
	mtime   time.Time
	trusted bool
}

// mtimeSettle is how old a directory's modification time must be, when the
// directory is read, for the read to stand until the time changes: far
// more than the granularity of file time stamps.
const mtimeSettle = time.Second

// unchanged stats dir and reports its modification time and whether it is
// the one of a trusted read.
func (m *dirMemory) unchanged(dir string) (time.Time, bool) {
	fi, err := os.Stat(dir)
	if err != nil {
		return time.Time{}, false
	}
	st, ok := m.seen[dir]
	return fi.ModTime(), ok && st.trusted && st.mtime.Equal(fi.ModTime())
}

// remember records a read of dir that started at readAt, when dir's
// modification time was mtime; settled is false when the read left
// something for later.
func (m *dirMemory) remember(dir string, mtime, readAt time.Time, settled bool) {
	if m.seen == nil {
		m.seen = map[string]dirStamp{}
	}
	m.seen[dir] = dirStamp{mtime: mtime, trusted: settled && !mtime.IsZero() && readAt.Sub(mtime) >= mtimeSettle}
}

// entries returns the entries of dir (the sessions directory), read again
// only when it changed or always is set.
func (m *dirMemory) entries(dir string, always bool) ([]os.DirEntry, bool) {
	mtime, unchanged := m.unchanged(dir)
	if unchanged && !always {
		return m.top, true
	}
	readAt := time.Now()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	m.top = entries
	m.remember(dir, mtime, readAt, true)
	return entries, true
}
