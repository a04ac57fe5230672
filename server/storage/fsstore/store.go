// Package fsstore is the filesystem storage backend. It keeps the original
// server's layout under the data directory:
//
//	config.json
//	projects/<project>/sessions/<YYYY-MM>/<sessionId>/
//	    manifest.json        metadata and file lists (a snapshot)
//	    journal.jsonl        write-ahead log, one line per change
//	    NNN.json             main-chain thought nodes
//	    branches/<id>/NNN.json
//
// A thought is acknowledged once its journal line is appended (one write to
// an open-for-append file, a few microseconds); the thought files, with their
// next links, and the manifest are written in the background through
// temporary files and renames, and at Flush and Close. After a crash the
// journal restores every acknowledged thought, in creation order, and the
// files it had not written yet.
package fsstore

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// Store is the filesystem backend.
type Store struct {
	base        string
	sessionsDir string
	// contextsDir is the directory of the 2026-era contexts' files, beside
	// sessionsDir (worked out once: it was 1 % of fs's CPU in 2026).
	contextsDir string
	reg         *storage.Registry
	now         func() time.Time
	log         *slog.Logger
	flushEvery  time.Duration
	durability  Durability
	lockWait    time.Duration
	// touchResolution: see WithContextTouchResolution.
	touchResolution time.Duration
	// exportsDir is the directory of export files to migrate at start-up
	// ("" for none); migration is its report (see migrate.go).
	exportsDir string
	migration  MigrationReport

	// loadMu serialises loading sessions from disk (start-up, scans for
	// sessions other processes created, lookups of unknown ids).
	loadMu sync.Mutex
	// lastRescan is when List last looked on disk (under mu).
	lastRescan time.Time
	// dirs is what scans remember of the directories they read (under
	// loadMu); see rescan.go.
	dirs dirMemory
	// starting is true while start-up scans (under loadMu); unswept are
	// the directories of the sessions it registered from their manifests,
	// whose stray temporary files sweepStartupTemps removes afterwards;
	// swept is closed when it is done, sweepStop stops it early.
	starting  bool
	unswept   []string
	swept     chan struct{}
	sweepStop chan struct{}
	// refreshes tracks the background journal refreshes of List.
	refreshes  sync.WaitGroup
	refreshing bool // under mu
	// procs is this store's place in the project's register of open
	// stores; lastLook is what it showed when List last looked for other
	// processes' changes (under mu; see processes.go).
	procs    *processes
	lastLook lookState
	looks    atomic.Int64 // looks run (tests count them)
	// takeOvers counts the take-overs Open ran (tests count them).
	takeOvers atomic.Int64
	// ctxCache holds the contexts this store read or wrote, answered
	// from while the register shows it alone (contextcache.go).
	ctxCache contextCache

	mu          sync.Mutex
	files       map[string]*sessionFiles
	damaged     map[string]string
	closed      bool
	wakeup      chan struct{}
	stop        chan struct{}
	stopped     chan struct{}
	removedT    int
	repaired    int
	tornDropped int
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the source of timestamps (for tests).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithLogger sets where start-up reports and write failures go.
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.log = l } }

// WithFlushInterval sets how long the background writer waits after a change
// before writing files, so that quick successive changes to a file are
// written once (default 200 ms; zero or less disables the background writer,
// leaving Flush and Close). Every pass also rewrites the manifest and the
// file of each session's last thought (its next link changed), so a longer
// interval means fewer files created per thought; creating a file is what
// the writer spends most of its time on.
func WithFlushInterval(d time.Duration) Option { return func(s *Store) { s.flushEvery = d } }

// WithContextTouchResolution sets how long after the last use a context's
// file records a use that changes nothing may come and be kept in memory
// only (default 0: every use is recorded in the file): a server gives a
// small fraction of the time a context may sit idle. See TouchContext.
func WithContextTouchResolution(d time.Duration) Option {
	return func(s *Store) { s.touchResolution = d }
}

// Config is the persisted config.json at the root of the data directory.
type Config struct {
	InstallID                   string `json:"installId"`
	DataDir                     string `json:"dataDir"`
	DisableThoughtLogging       bool   `json:"disableThoughtLogging"`
	SessionPartitionGranularity string `json:"sessionPartitionGranularity"`
	CreatedAt                   string `json:"createdAt"`
}

// Open prepares the data directory base for project and loads every session
// of the project. Damaged sessions are reported through the logger and by
// Damaged; stray temporary files are removed (those of the sessions read
// from their manifests in the background, see sweepStartupTemps).
func Open(base, project string, opts ...Option) (*Store, error) {
	abs, err := filepath.Abs(base)
	if err != nil {
		return nil, err
	}
	s := &Store{base: abs, reg: storage.NewRegistry(), now: time.Now, log: slog.Default(), flushEvery: 200 * time.Millisecond,
		files: map[string]*sessionFiles{}, damaged: map[string]string{}, wakeup: make(chan struct{}, 1)}
	for _, o := range opts {
		o(s)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	s.migrateLegacyLayout()
	s.sessionsDir = filepath.Join(abs, "projects", project, "sessions")
	s.contextsDir = filepath.Join(abs, "projects", project, "contexts")
	if err := os.MkdirAll(s.sessionsDir, 0o700); err != nil {
		return nil, fmt.Errorf("create sessions dir: %w", err)
	}
	if err := s.ensureConfig(); err != nil {
		return nil, err
	}
	// Registered before anything is read: a store that opens later
	// counts itself in, and this one's next look sees it.
	s.procs = openProcesses(filepath.Join(filepath.Dir(s.sessionsDir), processesName))
	if err := s.loadAll(); err != nil {
		s.procs.close()
		return nil, err
	}
	s.swept, s.sweepStop = make(chan struct{}), make(chan struct{})
	go s.sweepStartupTemps(s.unswept)
	s.unswept = nil
	if s.exportsDir != "" {
		s.migrateExports()
	}
	if s.flushEvery > 0 {
		s.stop, s.stopped = make(chan struct{}), make(chan struct{})
		go s.writeLoop()
	} else if err := s.flushAll(); err != nil {
		s.procs.close()
		return nil, err
	}
	return s, nil
}

// migrateLegacyLayout moves a pre-project <base>/sessions tree into
// projects/_default/sessions, as the original server does.
func (s *Store) migrateLegacyLayout() {
	legacy := filepath.Join(s.base, "sessions")
	target := filepath.Join(s.base, "projects", "_default", "sessions")
	if _, err := os.Stat(legacy); err != nil {
		return
	}
	if _, err := os.Stat(target); err == nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err == nil {
		if err := os.Rename(legacy, target); err == nil {
			s.log.Info("migrated legacy sessions to projects/_default/sessions")
		}
	}
}

func (s *Store) ensureConfig() error {
	path := filepath.Join(s.base, "config.json")
	var cfg Config
	err := readJSON(path, &cfg)
	if err == nil {
		return nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("config %s is not valid JSON (fix or remove it): %w", path, err)
	}
	cfg = Config{InstallID: uuid.NewString(), DataDir: s.base, SessionPartitionGranularity: "monthly",
		CreatedAt: storage.FormatTime(s.now())}
	return writeAtomic(path, cfg)
}

// SessionsDir returns the directory holding the project's sessions.
func (s *Store) SessionsDir() string { return s.sessionsDir }

// Create starts a new session, writes its directory, journal and manifest,
// and holds it open for writing (see Open).
func (s *Store) Create(p storage.CreateParams) (*storage.Chain, error) {
	now := s.now()
	ts := storage.FormatTime(now)
	id := uuid.NewString()
	partition := now.Local().Format("2006-01")
	dir := filepath.Join(s.sessionsDir, partition, id)
	// A scan for sessions of other processes must not load this one while it
	// is being made: it would register a second, unlocked copy of it.
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	spreadSessions(filepath.Dir(dir))
	if err := makeSessionDir(dir); err != nil {
		return nil, err
	}
	tags := p.Tags
	if tags == nil {
		tags = []string{}
	}
	sess := storage.Session{ID: id, Title: p.Title, Tags: tags, PartitionPath: partition,
		CreatedAt: ts, UpdatedAt: ts, LastAccessedAt: ts}
	sf := newSessionFiles(id, dir, partition, s.wake, s.durability)
	if ok, err := sf.lock.acquire(0); !ok || err != nil {
		return nil, fmt.Errorf("cannot lock the new session: %v", err)
	}
	sf.mu.Lock()
	sf.owned = true
	sf.setMeta(&sess)
	err := sf.journal(record{Op: opSession, Session: &sess})
	sf.manifestDirty = true
	sf.mu.Unlock()
	if err == nil && s.durability != DurabilityOff {
		// The new directory entries must reach the disk with the journal.
		err = errors.Join(fsyncPath(dir), fsyncPath(filepath.Dir(dir)), fsyncPath(s.sessionsDir))
	}
	if err == nil {
		// The manifest is written now, not with the first thoughts: a
		// session directory without one is not a session to a reader of
		// the layout (features/durability.feature reads it after a kill).
		err = sf.materialize()
	}
	if err != nil {
		sf.mu.Lock()
		_ = sf.closeJournal()
		sf.mu.Unlock()
		_ = sf.lock.release()
		return nil, err
	}
	c := storage.NewChain(sess, sf, s.now)
	sf.chain = c
	sf.holders = 1
	s.mu.Lock()
	s.files[id] = sf
	s.mu.Unlock()
	s.reg.Add(c)
	return c, nil
}

// makeSessionDir creates a new session's directory and its branches
// directory: two mkdir calls where the partition exists (os.MkdirAll would
// first look up every level).
func makeSessionDir(dir string) error {
	branches := filepath.Join(dir, "branches")
	if os.Mkdir(dir, 0o700) == nil && os.Mkdir(branches, 0o700) == nil {
		return nil
	}
	return os.MkdirAll(branches, 0o700)
}

// Integrity checks the session's manifest and thought files.
func (s *Store) Integrity(id string) Integrity {
	s.mu.Lock()
	sf := s.files[id]
	reason, damaged := s.damaged[id]
	s.mu.Unlock()
	if sf != nil {
		s.load(sf)
		if reason := sf.brokenReason(); reason != "" {
			res := missingIntegrity(id)
			res.SessionExists = true
			res.Errors = []string{reason}
			return res
		}
		sf.mu.Lock()
		owned := sf.owned
		sf.mu.Unlock()
		if owned {
			return s.checkAndRepair(sf)
		}
		return s.checkUnowned(sf)
	}
	if damaged {
		res := missingIntegrity(id)
		res.SessionExists = true
		res.Errors = []string{reason}
		return res
	}
	return missingIntegrity(id)
}

// checkUnowned checks a session this process does not have open: it takes
// the session's lock for the check when no other process holds it. While
// another process writes the session, its files may lag behind its journal,
// so only the problems found while reading the session are reported.
func (s *Store) checkUnowned(sf *sessionFiles) Integrity {
	sf.ownMu.Lock()
	defer sf.ownMu.Unlock()
	if ok, err := sf.lock.acquire(0); ok && err == nil {
		sf.mu.Lock()
		sf.owned = true
		sf.mu.Unlock()
		s.takeOver(sf)
		res := s.checkAndRepair(sf)
		if sf.holders == 0 {
			s.disown(sf)
		}
		return res
	}
	res := validIntegrity()
	res.Errors = sf.problems()
	res.Valid = len(res.Errors) == 0
	return res
}

// Damaged lists the sessions found at start-up with problems the journals
// could not repair.
func (s *Store) Damaged() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.damaged))
	maps.Copy(out, s.damaged)
	return out
}

// SessionDir returns the directory of a loaded session.
func (s *Store) SessionDir(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sf := s.files[id]; sf != nil {
		return sf.dir, true
	}
	return "", false
}

// checkAndRepair writes everything pending, rewrites thought files that went
// missing while the server ran (memory holds their content) and reports what
// is still wrong.
func (s *Store) checkAndRepair(sf *sessionFiles) Integrity {
	_ = sf.materialize()
	res := sf.check()
	if res.Valid || len(res.MissingThoughtFiles)+len(res.MissingBranchFiles) == 0 {
		return res
	}
	// The snapshot is taken and queued while no append can run, so it
	// never replaces a newer pending snapshot with an older one.
	sf.chain.Freeze(func(order []storage.Node) {
		for _, n := range order {
			if _, err := os.Stat(filepath.Join(sf.dir, nodeRelPath(&n))); err != nil {
				sf.queue(n)
			}
		}
	})
	if err := sf.materialize(); err == nil {
		s.log.Warn("rewrote missing thought files from memory", "session", sf.id)
	}
	return sf.check()
}

// Flush writes the session's pending files and manifest.
func (s *Store) Flush(id string) error {
	s.mu.Lock()
	sf := s.files[id]
	s.mu.Unlock()
	if sf == nil {
		return nil
	}
	return sf.materialize()
}

// wake tells the background writer there is work.
func (s *Store) wake() {
	select {
	case s.wakeup <- struct{}{}:
	default:
	}
}

// sessions returns every session the store knows, as of now.
func (s *Store) sessions() []*sessionFiles {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := make([]*sessionFiles, 0, len(s.files))
	for _, sf := range s.files {
		all = append(all, sf)
	}
	return all
}

func (s *Store) flushAll() error {
	all := s.sessions()
	sort.Slice(all, func(i, j int) bool { return all[i].id < all[j].id })
	var errs []error
	for _, sf := range all {
		if !sf.hasWork() {
			continue
		}
		if err := sf.materialize(); err != nil {
			errs = append(errs, err)
			continue
		}
		s.releaseIdle(sf)
	}
	return errors.Join(errs...)
}

// writeLoop writes pending files in the background. After a wake-up it waits
// flushEvery so that a file changed several times in quick succession (a
// thought, then its next link) is written once.
func (s *Store) writeLoop() {
	defer close(s.stopped)
	retry := time.NewTicker(5 * time.Second)
	defer retry.Stop()
	leases := time.NewTicker(lease / 2)
	defer leases.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-s.wakeup:
		case <-retry.C:
		case <-leases.C:
			s.expireLeases()
			continue
		}
		select {
		case <-s.stop:
			return
		case <-time.After(s.flushEvery):
		}
		if err := s.flushAll(); err != nil {
			s.log.Warn("writing session files failed; the journal keeps the data, retrying", "err", err)
		}
	}
}

// Close stops the background writer and writes everything pending.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	if s.swept != nil {
		close(s.sweepStop)
		<-s.swept
	}
	if s.stop != nil {
		close(s.stop)
		<-s.stopped
	}
	s.refreshes.Wait()
	err := s.flushAll()
	all := s.sessions()
	for _, sf := range all {
		sf.ownMu.Lock()
		sf.holders = 0
		s.disown(sf)
		sf.ownMu.Unlock()
	}
	s.procs.close()
	return err
}
