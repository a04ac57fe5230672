package fsstore

import (
	"os"
	"path/filepath"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// WithLockWait sets how long Open waits for a session another process has
// open (default 0: it fails at once with a *storage.BusyError).
func WithLockWait(d time.Duration) Option { return func(s *Store) { s.lockWait = d } }

// lease is how long a process keeps a session's lock after its last
// Release: a writer that pauses between thoughts keeps the session without
// taking the lock again for each one, and another process waits at most
// this long (plus the writing of the files) for a session nobody writes.
const lease = 250 * time.Millisecond

// Open returns a session for writing. When this process does not hold the
// session's lock it takes it (waiting up to the configured lock wait when
// another process holds it) and reads what other processes wrote since:
// from then on this process alone writes the session, until the last
// Release and the lease after it. A session whose journal is as this
// process left it when it gave the lock up (untouched) is taken back
// without reading its files again.
func (s *Store) Open(id string) (*storage.Chain, error) {
	sf, c, err := s.find(id)
	if err != nil {
		return nil, err
	}
	sf.ownMu.Lock()
	defer sf.ownMu.Unlock()
	sf.mu.Lock()
	owned := sf.owned
	sf.mu.Unlock()
	if !owned {
		ok, err := sf.lock.acquire(s.lockWait)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &storage.BusyError{SessionID: id, PID: sf.lock.holder()}
		}
		sf.mu.Lock()
		sf.owned = true
		sf.mu.Unlock()
		if !sf.untouched() {
			s.takeOvers.Add(1)
			s.takeOver(sf)
		}
	}
	sf.holders++
	return c, nil
}

// takeOver brings an owned session up to date with its journal: it reads
// the records other processes appended, cuts a torn last line (no one else
// is writing now), removes stray temporary files and schedules the files
// a dead owner did not write. Caller holds ownMu and the lock.
func (s *Store) takeOver(sf *sessionFiles) {
	sf.tailMu.Lock()
	defer sf.tailMu.Unlock()
	s.removeSessionTemps(sf.dir)
	tail, err := readJournalFrom(sf.dir, sf.offset)
	if err == nil {
		if tail.torn > 0 && tail.corrupt == nil {
			s.dropTorn(sf, sf.offset+tail.consumed, tail.torn)
		}
		s.apply(sf, sf.chain, tail.records, 0)
		sf.offset += tail.consumed
		if tail.corrupt != nil {
			sf.problem("Journal damaged: " + tail.corrupt.Error() + "; thoughts recorded after it may be missing")
		}
	}
	var m manifest
	merr := readJSON(filepath.Join(sf.dir, "manifest.json"), &m)
	sf.mu.Lock()
	sf.jlen = journalSize(sf.dir)
	if merr != nil || m.JournalSeq != sf.seq || m.JournalBytes != sf.jlen {
		sf.manifestDirty = true
	}
	sf.mu.Unlock()
	s.verify(sf)
	s.mu.Lock()
	s.noteDamageLocked(sf)
	s.mu.Unlock()
}

// untouched reports whether the session's journal is the file, of the
// length and modification time, it was when this process last gave up
// the lock, and as long as this process wrote it: then no other process
// has appended to it, cut it or replaced it since (every change of a
// session appends to its journal), and this process's last append was
// whole, so the session in memory is the session on disk. Caller holds
// ownMu and the lock.
func (sf *sessionFiles) untouched() bool {
	if sf.disowned == nil {
		return false
	}
	now, err := os.Stat(filepath.Join(sf.dir, journalName))
	if err != nil || !os.SameFile(now, sf.disowned) || now.Size() != sf.disowned.Size() || !now.ModTime().Equal(sf.disowned.ModTime()) {
		return false
	}
	sf.mu.Lock()
	defer sf.mu.Unlock()
	return sf.jlen == now.Size()
}

// Release ends one Open. A lease after the last one the session's files
// are written and its lock is given up, so another process can open it
// (at once when there is no background writer).
func (s *Store) Release(id string) {
	sf := s.filesOf(id)
	if sf == nil {
		return
	}
	sf.ownMu.Lock()
	defer sf.ownMu.Unlock()
	if sf.holders == 0 {
		return
	}
	sf.holders--
	if sf.holders > 0 {
		return
	}
	if s.flushEvery <= 0 {
		s.disown(sf)
		return
	}
	sf.idleSince = time.Now()
}

// releaseIdle gives up the lock of a session nothing has open and whose
// lease ran out (or that was locked at start-up for a repair), once
// everything is written.
func (s *Store) releaseIdle(sf *sessionFiles) {
	sf.ownMu.Lock()
	defer sf.ownMu.Unlock()
	if sf.holders == 0 && time.Since(sf.idleSince) >= lease {
		s.disown(sf)
	}
}

// expireLeases releases every session whose lease ran out.
func (s *Store) expireLeases() {
	all := s.sessions()
	for _, sf := range all {
		sf.mu.Lock()
		owned := sf.owned
		sf.mu.Unlock()
		if owned {
			s.releaseIdle(sf)
		}
	}
}

// disown writes what is pending and gives up the lock. When the files
// cannot be written the lock is kept (the background writer retries).
// Caller holds ownMu, or is the only one who can see sf.
func (s *Store) disown(sf *sessionFiles) {
	sf.mu.Lock()
	owned := sf.owned
	sf.mu.Unlock()
	if !owned {
		return
	}
	if err := sf.materialize(); err != nil {
		s.log.Warn("writing session files failed; keeping the session locked and retrying", "session", sf.id, "err", err)
		return
	}
	fi, err := os.Stat(filepath.Join(sf.dir, journalName))
	sf.disowned = nil
	if err == nil {
		sf.disowned = fi
	}
	sf.tailMu.Lock()
	sf.offset = 0
	if fi != nil {
		sf.offset = fi.Size()
	}
	sf.tailMu.Unlock()
	sf.mu.Lock()
	sf.owned = false
	if err := sf.closeJournal(); err != nil {
		s.log.Warn("closing the journal failed", "session", sf.id, "err", err)
	}
	sf.mu.Unlock()
	if err := sf.lock.release(); err != nil {
		s.log.Warn("cannot unlock session", "session", sf.id, "err", err)
	}
}
