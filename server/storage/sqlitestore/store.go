// Package sqlitestore is the SQLite storage backend (THOUGHTBOX_STORAGE=sqlite):
// one database file per project, <data dir>/projects/<project>/sessions.db,
// in WAL mode. Every change is one transaction, committed before the change
// is acknowledged, so a crash loses nothing that was answered and leaves
// nothing half written. Several server processes can share the file: each
// sees what the others wrote, and only one at a time may write a session
// (a flock per session, see lock.go). Every query is parameterised.
//
// Sessions are read lazily: start-up reads nothing but the schema; List
// keeps the metadata of every session in memory and refreshes what other
// processes changed; a session's thoughts are read the first time it is
// asked for.
package sqlitestore

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// FileName is the database file in the project directory.
const FileName = "sessions.db"

// Store is the SQLite backend.
type Store struct {
	path     string
	lockDir  string
	db       *sql.DB
	now      func() time.Time
	log      *slog.Logger
	lockWait time.Duration
	fullSync bool
	ckpt     *checkpointer
	stmts    statements

	// loadMu serialises reading a session's thoughts for the first time,
	// so that every caller gets the same chain.
	loadMu sync.Mutex
	// idxMu serialises refreshes of the session index; warming is the
	// first one, started by Open.
	idxMu   sync.Mutex
	warming sync.WaitGroup

	mu    sync.Mutex
	index map[string]*entry
	// recent holds the index's sessions, by id, in List's order; tagged
	// the ids under each tag they carried at some time (a List by tags
	// reads those only, and checks each).
	recent      storage.Recency[string]
	tagged      map[string]map[string]struct{}
	states      map[string]*state
	damaged     map[string]string
	knownRev    int64
	dataVersion int64
	indexed     bool
	closed      bool
}

// entry is what the index knows of one session: its metadata as of its last
// change, its creation rank and its change count, and the lower-case title,
// description and tags that a List search looks in.
type entry struct {
	sess  storage.Session
	n     int64
	seq   int64
	lower []string
}

func newEntry(sess storage.Session, n, seq int64) *entry {
	e := &entry{n: n}
	e.set(sess, seq)
	return e
}

// set replaces the entry's metadata.
func (e *entry) set(sess storage.Session, seq int64) {
	e.sess, e.seq = sess, seq
	e.lower = e.lower[:0]
	e.lower = append(e.lower, strings.ToLower(sess.Title))
	if sess.Description != nil {
		e.lower = append(e.lower, strings.ToLower(*sess.Description))
	}
	for _, t := range sess.Tags {
		e.lower = append(e.lower, strings.ToLower(t))
	}
}

// matches reports whether the entry passes f's tag filter and the
// lower-case search (as storage.Filter.Matches does).
func (e *entry) matches(anyTags []string, search string) bool {
	if len(anyTags) > 0 && !slices.ContainsFunc(anyTags, func(t string) bool { return slices.Contains(e.sess.Tags, t) }) {
		return false
	}
	return search == "" || slices.ContainsFunc(e.lower, func(l string) bool { return strings.Contains(l, search) })
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the source of timestamps (for tests).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithLogger sets where start-up reports go.
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.log = l } }

// WithLockWait sets how long Open waits for a session another process has
// open (default 0: it fails at once with a *storage.BusyError).
func WithLockWait(d time.Duration) Option { return func(s *Store) { s.lockWait = d } }

// WithFullSync makes every commit reach the disk before it is acknowledged
// (synchronous=FULL: a commit survives a power failure). By default a
// commit survives a crash of the process (synchronous=NORMAL in WAL mode).
func WithFullSync(on bool) Option { return func(s *Store) { s.fullSync = on } }

// Path returns the database file of project under the data directory base.
func Path(base, project string) string {
	return filepath.Join(base, "projects", project, FileName)
}

// Open opens (creating it if needed) the session database of project under
// the data directory base. A file that is not a thoughtbox session database,
// or is damaged, is refused with a *NotOursError and left untouched.
func Open(base, project string, opts ...Option) (*Store, error) {
	abs, err := filepath.Abs(base)
	if err != nil {
		return nil, err
	}
	s := &Store{path: Path(abs, project), now: time.Now, log: slog.Default(),
		index: map[string]*entry{}, tagged: map[string]map[string]struct{}{}, states: map[string]*state{}, damaged: map[string]string{}}
	for _, o := range opts {
		o(s)
	}
	s.lockDir = filepath.Join(filepath.Dir(s.path), "session-locks")
	if err := os.MkdirAll(s.lockDir, 0o700); err != nil {
		return nil, fmt.Errorf("create the project directory: %w", err)
	}
	if s.db, err = openDB(s.path, s.fullSync); err != nil {
		return nil, err
	}
	s.stmts.db = s.db
	if err := s.stmts.prepare(txStatements...); err != nil {
		_ = s.db.Close()
		return nil, fmt.Errorf("prepare the store's statements: %w", err)
	}
	s.ckpt = startCheckpointer(s.path, s.db)
	// The index is read in the background, so that the start does not
	// wait for it and the first List usually does not either.
	s.warming.Add(1)
	go func() {
		defer s.warming.Done()
		if err := s.refreshIndex(); err != nil {
			s.log.Warn("reading the session index failed", "err", err)
		}
	}()
	return s, nil
}

// DatabasePath returns the database file.
func (s *Store) DatabasePath() string { return s.path }

// Create starts a new session, committed at once, and holds it open for
// writing (see Open).
func (s *Store) Create(p storage.CreateParams) (*storage.Chain, error) {
	ts := storage.FormatTime(s.now())
	tags := p.Tags
	if tags == nil {
		tags = []string{}
	}
	sess := storage.Session{ID: uuid.NewString(), Title: p.Title, Tags: tags, CreatedAt: ts, UpdatedAt: ts, LastAccessedAt: ts}
	tagJSON, err := json.Marshal(tags)
	if err != nil {
		return nil, err
	}
	st := &state{id: sess.ID, store: s, lock: newSessionLock(s.lockDir, sess.ID), pos: map[string]int64{}}
	if ok, err := st.lock.acquire(0); !ok || err != nil {
		return nil, fmt.Errorf("cannot lock the new session: %v", err)
	}
	res, err := s.exec(`INSERT INTO sessions (id, title, description, tags, created_at, updated_at, last_accessed_at, rev)
		VALUES (?, ?, NULL, ?, ?, ?, ?, (SELECT COALESCE(MAX(rev), 0) + 1 FROM sessions))`,
		sess.ID, sess.Title, string(tagJSON), ts, ts, ts)
	if err != nil {
		_ = st.lock.release()
		return nil, err
	}
	n, _ := res.LastInsertId()
	st.chain = storage.NewChain(sess, st, s.now)
	st.owned, st.holders = true, 1
	s.mu.Lock()
	s.index[sess.ID] = newEntry(sess, n, 0)
	s.noted(sess.ID)
	s.states[sess.ID] = st
	s.mu.Unlock()
	return st.chain, nil
}

// Get returns a session for reading; what another process changed since
// this one last read it is read first.
func (s *Store) Get(id string) (*storage.Chain, error) {
	st, err := s.load(id)
	if err != nil {
		return nil, err
	}
	if s.changedElsewhere() {
		if err := s.refreshIndex(); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	var seq int64
	if e := s.index[id]; e != nil {
		seq = e.seq
	}
	s.mu.Unlock()
	st.catchUp(seq)
	return st.chain, nil
}

// Open returns a session for writing. When this process does not have it
// open yet it takes the session's lock (waiting up to the configured lock
// wait while another process holds it) and reads what others wrote since.
func (s *Store) Open(id string) (*storage.Chain, error) {
	st, err := s.load(id)
	if err != nil {
		return nil, err
	}
	st.ownMu.Lock()
	defer st.ownMu.Unlock()
	if st.holders == 0 {
		ok, err := st.lock.acquire(s.lockWait)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &storage.BusyError{SessionID: id, PID: st.lock.holder()}
		}
		if err := st.takeOver(); err != nil {
			_ = st.lock.release()
			return nil, err
		}
	}
	st.holders++
	return st.chain, nil
}

// Release ends one Open (or the Create); after the last one the session's
// lock is given up at once: every change is already committed.
func (s *Store) Release(id string) {
	s.mu.Lock()
	st := s.states[id]
	s.mu.Unlock()
	if st == nil {
		return
	}
	st.ownMu.Lock()
	defer st.ownMu.Unlock()
	if st.holders == 0 {
		return
	}
	st.holders--
	if st.holders == 0 {
		st.disown()
	}
}

// List returns matching sessions, most recently updated first; sessions
// updated at the same time are in creation order.
func (s *Store) List(f storage.Filter) []storage.Session {
	if s.changedElsewhere() || !s.isIndexed() {
		if err := s.refreshIndex(); err != nil {
			s.log.Warn("reading the session index failed", "err", err)
		}
	}
	return s.listIndexed(f)
}

// Damaged lists the sessions with thoughts that could not be read back
// (storage.DamageReporter), with the reason.
func (s *Store) Damaged() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.damaged))
	maps.Copy(out, s.damaged)
	return out
}

// Check reads the session and reports the thoughts that could not be read
// back (storage.Checker).
func (s *Store) Check(id string) storage.Health {
	if _, err := s.Get(id); err != nil {
		if errors.Is(err, storage.ErrSessionNotFound) {
			return storage.Health{Problems: []string{"Session " + clip.String(id) + " not found"}}
		}
		return storage.Health{Exists: true, Problems: []string{err.Error()}}
	}
	s.mu.Lock()
	reason, bad := s.damaged[id]
	s.mu.Unlock()
	if bad {
		return storage.Health{Exists: true, Problems: []string{reason}}
	}
	return storage.Health{Exists: true, Valid: true, Problems: []string{}}
}

// Close gives up every session's lock and closes the database. Everything
// was committed as it happened.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.warming.Wait()
	s.mu.Lock()
	states := make([]*state, 0, len(s.states))
	for _, st := range s.states {
		states = append(states, st)
	}
	s.mu.Unlock()
	for _, st := range states {
		st.ownMu.Lock()
		if st.holders > 0 {
			st.holders = 0
			st.disown()
		}
		st.ownMu.Unlock()
	}
	return errors.Join(s.ckpt.close(), s.stmts.close(), s.db.Close())
}

var (
	_ storage.Store          = (*Store)(nil)
	_ storage.Checker        = (*Store)(nil)
	_ storage.DamageReporter = (*Store)(nil)
)
