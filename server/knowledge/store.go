package knowledge

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/uuid"
)

// File names in the memory directory.
const (
	LogName   = "graph.jsonl"
	IndexName = "memory.db"
	lockName  = "graph.jsonl.lock"
)

// Dir returns the memory directory of project under dataDir.
func Dir(dataDir, project string) string {
	return filepath.Join(dataDir, "projects", project, "memory")
}

// Store is the knowledge graph of one memory directory. Its methods are
// safe for concurrent use, and other processes may use the same directory.
type Store struct {
	dir string
	log *slog.Logger
	now func() time.Time
	// noSync leaves appends in the page cache (WithoutFsync).
	noSync bool

	mu     sync.Mutex // one operation of this process at a time
	lock   *flock.Flock
	file   *os.File // graph.jsonl, opened for appending
	db     *sql.DB
	stmts  *statements // db's prepared statements
	dbFile os.FileInfo // the memory.db this process has open
	// q is the transaction of the operation running under the lock.
	q querier
	// appendedAt is the size graph.jsonl had before the running
	// operation appended to it (-1: it did not); appendedTo the size
	// after.
	appendedAt, appendedTo int64
	// indexedTo is the size of graph.jsonl this process last saw the index
	// match (-1: unknown); while the file keeps that size, no other
	// process has appended, and the index needs no check.
	indexedTo int64
	closed    bool
	skipped   int // malformed or inapplicable lines met so far
}

// Option configures a Store.
type Option func(*Store)

// WithLogger sets where skipped lines and rebuilds are reported.
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.log = l } }

// WithoutFsync acknowledges an append once it is written, without fsync:
// it then survives the server's crash (kill -9) but not the machine's,
// like a thought with THOUGHTBOX_FSYNC=off. The index needs no fsync in
// either case: it is rebuilt from graph.jsonl when it does not match.
func WithoutFsync() Option { return func(s *Store) { s.noSync = true } }

// WithClock sets the clock (tests).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// Open opens the knowledge graph in dir, creating the directory and an
// empty graph.jsonl if needed. The index is checked against the file and
// rebuilt from it when it is missing, damaged or does not match.
func Open(dir string, opts ...Option) (*Store, error) {
	s := &Store{dir: dir, log: slog.New(slog.NewTextHandler(io.Discard, nil)), now: time.Now, indexedTo: -1}
	for _, o := range opts {
		o(s)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(s.logPath(), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	s.file = f
	s.lock = flock.New(filepath.Join(dir, lockName))
	err = s.withLock(func() error { return nil })
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) logPath() string   { return filepath.Join(s.dir, LogName) }
func (s *Store) indexPath() string { return filepath.Join(s.dir, IndexName) }

// Close releases the store's files.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	if s.db != nil {
		errs = append(errs, s.db.Close())
	}
	errs = append(errs, s.file.Close())
	return errors.Join(errs...)
}

// indexError marks a failure of the SQLite index (not of the input): the
// operation is tried once more on a rebuilt index.
type indexError struct{ err error }

func (e indexError) Error() string { return "knowledge index: " + e.err.Error() }
func (e indexError) Unwrap() error { return e.err }

func ixErr(err error) error {
	if err == nil {
		return nil
	}
	return indexError{err}
}

// withLock runs f holding this process's mutex and the directory lock,
// with the index up to date with graph.jsonl. When f fails on the index
// itself, the index is rebuilt and f runs once more.
func (s *Store) withLock(f func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("knowledge store is closed")
	}
	if err := s.lock.Lock(); err != nil {
		return fmt.Errorf("locking %s: %w", s.lock.Path(), err)
	}
	defer s.lock.Unlock()
	if err := s.sync(); err != nil {
		return err
	}
	err := s.inTx(f)
	var ie indexError
	if errors.As(err, &ie) {
		s.log.Warn("knowledge index failed; rebuilding it from graph.jsonl", "err", ie.err)
		if rerr := s.rebuild(); rerr != nil {
			return errors.Join(err, rerr)
		}
		err = s.inTx(f)
	}
	return err
}

// inTx runs f in one index transaction. If f or the commit fails, what f
// appended to graph.jsonl is cut off again.
func (s *Store) inTx(f func() error) error {
	s.appendedAt = -1
	tx, err := begin(s.stmts)
	if err != nil {
		return ixErr(err)
	}
	s.q = tx
	defer func() { s.q = nil }()
	err = f()
	if err == nil {
		err = ixErr(tx.Commit())
	} else {
		_ = tx.Rollback()
	}
	switch {
	case err != nil && s.appendedAt >= 0:
		s.indexedTo = -1
		if terr := s.file.Truncate(s.appendedAt); terr != nil {
			err = errors.Join(err, terr)
		}
	case err == nil && s.appendedAt >= 0:
		s.indexedTo = s.appendedTo
	}
	return err
}

// sync makes the index match graph.jsonl: it opens memory.db (again, when
// another process replaced it), rebuilds it when it is missing, damaged or
// not an index of this file, and applies the lines appended since.
func (s *Store) sync() error {
	info, err := os.Stat(s.indexPath())
	switch {
	case errors.Is(err, os.ErrNotExist):
		return s.rebuild()
	case err != nil:
		return err
	case s.db == nil || !os.SameFile(info, s.dbFile):
		if err := s.reopen(info); err != nil {
			s.log.Warn("knowledge index unusable; rebuilding it from graph.jsonl", "err", err)
			return s.rebuild()
		}
	}
	size, err := s.repairTail()
	if err != nil {
		return err
	}
	if size == s.indexedTo {
		return nil // nothing appended since this process's index matched
	}
	s.indexedTo = -1
	pos, err := readPosition(s.db)
	if err != nil {
		return s.rebuild()
	}
	if pos.Offset > size || !s.tailMatches(pos) {
		s.log.Warn("knowledge index does not match graph.jsonl; rebuilding it")
		return s.rebuild()
	}
	if pos.Offset < size {
		if err := s.apply(pos, size); err != nil {
			return s.rebuild()
		}
	}
	s.indexedTo = size
	return nil
}

// reopen opens the memory.db described by info and checks it.
func (s *Store) reopen(info os.FileInfo) error {
	s.indexedTo = -1
	if s.db != nil {
		s.db.Close()
		s.db = nil
	}
	db, err := openIndex(s.indexPath())
	if err != nil {
		return err
	}
	if err := checkIndex(db); err != nil {
		db.Close()
		return err
	}
	s.db, s.stmts, s.dbFile = db, newStatements(db), info
	return nil
}

// repairTail cuts a torn last line (one without its newline) off
// graph.jsonl: it holds the directory lock, so the process that wrote it
// died mid-write and never acknowledged it. It returns the file's size.
func (s *Store) repairTail() (int64, error) {
	info, err := s.file.Stat()
	if err != nil {
		return 0, err
	}
	size := info.Size()
	if size == 0 {
		return 0, nil
	}
	var last [1]byte
	if _, err := s.file.ReadAt(last[:], size-1); err != nil {
		return 0, err
	}
	if last[0] == '\n' {
		return size, nil
	}
	end, err := s.lastNewline(size)
	if err != nil {
		return 0, err
	}
	s.log.Warn("cutting a torn last line off graph.jsonl", "bytes", size-end)
	if err := s.file.Truncate(end); err != nil {
		return 0, err
	}
	return end, nil
}

// lastNewline returns the offset just after the last newline before size
// (0 when there is none).
func (s *Store) lastNewline(size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(end-int64(len(buf)), 0)
		chunk := buf[:end-start]
		if _, err := s.file.ReadAt(chunk, start); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// tailMatches reports whether the line the index says it applied last is
// where it says, with its checksum.
func (s *Store) tailMatches(p position) bool {
	if p.Offset == 0 {
		return p.TailLen == 0
	}
	if p.TailLen <= 0 || p.TailLen > p.Offset {
		return false
	}
	buf := make([]byte, p.TailLen)
	if _, err := s.file.ReadAt(buf, p.Offset-p.TailLen); err != nil {
		return false
	}
	return checksum(buf) == p.TailSum
}

func checksum(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// apply adds the lines of graph.jsonl between from.Offset and size to the
// index, in one transaction.
func (s *Store) apply(from position, size int64) error {
	data := make([]byte, size-from.Offset)
	if _, err := s.file.ReadAt(data, from.Offset); err != nil {
		return err
	}
	tx, err := begin(s.stmts)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	pos, err := s.applyLines(tx, data, from)
	if err != nil {
		return err
	}
	if err := writePosition(tx, pos); err != nil {
		return err
	}
	return tx.Commit()
}

// applyLines applies the complete lines of data, which starts at
// from.Offset in graph.jsonl, and returns the position after them.
func (s *Store) applyLines(tx querier, data []byte, from position) (position, error) {
	pos := from
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		line := data[:i+1]
		data = data[i+1:]
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			r, err := parseRecord(trimmed)
			if err != nil {
				s.skip("malformed", trimmed)
			} else if ok, err := applyRecord(tx, r); err != nil {
				return pos, err
			} else if !ok {
				s.skip("inapplicable (duplicate, or unknown entity)", trimmed)
			}
		}
		pos = position{Offset: pos.Offset + int64(len(line)), TailLen: int64(len(line)), TailSum: checksum(line)}
	}
	return pos, nil
}

func (s *Store) skip(why string, line []byte) {
	s.skipped++
	shown := line
	if len(shown) > 100 {
		shown = shown[:100]
	}
	s.log.Warn("skipping a graph.jsonl line", "why", why, "line", string(shown))
}

// rebuild replaces memory.db by a new index of the whole of graph.jsonl.
func (s *Store) rebuild() error {
	s.indexedTo = -1
	if s.db != nil {
		s.db.Close()
		s.db = nil
	}
	if err := removeIndex(s.indexPath()); err != nil {
		return err
	}
	db, err := openIndex(s.indexPath())
	if err != nil {
		return fmt.Errorf("creating %s: %w", s.indexPath(), err)
	}
	info, err := os.Stat(s.indexPath())
	if err != nil {
		db.Close()
		return err
	}
	s.db, s.stmts, s.dbFile = db, newStatements(db), info
	size, err := s.repairTail()
	if err != nil {
		return err
	}
	if err := s.apply(position{}, size); err != nil {
		return fmt.Errorf("rebuilding %s: %w", s.indexPath(), err)
	}
	return nil
}

// appendRecord writes r to graph.jsonl with one write and (unless
// WithoutFsync) fsync, then adds
// it to the index in the operation's transaction. If any of it fails (or
// later the commit), the file is cut back to where it was.
func (s *Store) appendRecord(r record) error {
	line, err := r.line()
	if err != nil {
		return err
	}
	info, err := s.file.Stat()
	if err != nil {
		return err
	}
	s.appendedAt, s.appendedTo = info.Size(), info.Size()+int64(len(line))
	if _, err := s.file.Write(line); err != nil {
		return fmt.Errorf("appending to %s: %w", s.logPath(), err)
	}
	if !s.noSync {
		if err := s.file.Sync(); err != nil {
			return fmt.Errorf("syncing %s: %w", s.logPath(), err)
		}
	}
	ok, err := applyRecord(s.q, r)
	if err == nil && !ok {
		err = errors.New("the record was refused by the index")
	}
	if err == nil {
		err = writePosition(s.q, position{Offset: s.appendedAt + int64(len(line)), TailLen: int64(len(line)), TailSum: checksum(line)})
	}
	return ixErr(err)
}

func newID() string { return uuid.NewString() }
