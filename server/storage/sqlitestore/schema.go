package sqlitestore

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// applicationID marks a SQLite file as a thoughtbox session database (the
// header's application_id: "TBox").
const applicationID = 0x54426F78

// schemaVersion is the version of the tables below, kept in tb_meta.
const schemaVersion = "1"

// schema creates the tables of a new database. sessions.rev is a
// database-wide change number: every change of a session gives it the next
// one, so a process finds what others changed since it last looked.
// sessions.seq counts the changes of one session. thoughts.pos is a
// thought's creation position in its session, so a process reads the
// thoughts added since its copy by position; rewrites records the
// positions rewritten (a critique added) at each seq, so it re-reads only
// those. The append path updates no secondary index of thoughts.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS tb_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`,
	`CREATE TABLE IF NOT EXISTS sessions (
		n INTEGER PRIMARY KEY,
		id TEXT NOT NULL UNIQUE,
		title TEXT NOT NULL,
		description TEXT,
		tags TEXT NOT NULL,
		created_at TEXT NOT NULL,
		updated_at TEXT NOT NULL,
		last_accessed_at TEXT NOT NULL,
		thought_count INTEGER NOT NULL DEFAULT 0,
		branch_count INTEGER NOT NULL DEFAULT 0,
		seq INTEGER NOT NULL DEFAULT 0,
		rev INTEGER NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS sessions_rev ON sessions(rev)`,
	`CREATE TABLE IF NOT EXISTS thoughts (
		session_id TEXT NOT NULL,
		pos INTEGER NOT NULL,
		node TEXT NOT NULL,
		PRIMARY KEY (session_id, pos)) WITHOUT ROWID`,
	`CREATE TABLE IF NOT EXISTS rewrites (
		session_id TEXT NOT NULL,
		seq INTEGER NOT NULL,
		pos INTEGER NOT NULL,
		PRIMARY KEY (session_id, seq)) WITHOUT ROWID`,
	// contexts holds 2026-era contexts (spec D26): any process on the
	// database serves them.
	`CREATE TABLE IF NOT EXISTS contexts (
		id TEXT PRIMARY KEY,
		state TEXT NOT NULL,
		used INTEGER NOT NULL) WITHOUT ROWID`,
	`INSERT OR IGNORE INTO tb_meta(key, value) VALUES ('schema', '` + schemaVersion + `')`,
	fmt.Sprintf(`PRAGMA application_id = %d`, applicationID),
}

// sqliteHeader starts every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// NotOursError reports a database file this backend refuses to use: not a
// SQLite file, a SQLite file of something else, or a damaged one. The file
// is left exactly as it was.
type NotOursError struct {
	Path   string
	Reason string
	// Corrupt is true for a thoughtbox database that SQLite reports
	// damaged, false for a file that is not a thoughtbox database.
	Corrupt bool
}

func (e *NotOursError) Error() string {
	if e.Corrupt {
		return "the session database " + e.Path + " is damaged (" + e.Reason + "). It was left untouched.\n\nRecovery options:\n" +
			"1. Stop every thoughtbox server using it and restore the file (with its -wal file, if any) from a backup.\n" +
			"2. Salvage what SQLite can still read into a new file: sqlite3 " + e.Path + " .recover | sqlite3 recovered.db, " +
			"then move the damaged file aside and put recovered.db in its place.\n" +
			"3. Move the file aside to start with no sessions, or set THOUGHTBOX_DATA_DIR or THOUGHTBOX_PROJECT to use another database."
	}
	return "the file " + e.Path + " is not a thoughtbox session database (" + e.Reason + "). It was left untouched.\n\nRecovery options:\n" +
		"1. If it belongs to another program, set THOUGHTBOX_DATA_DIR or THOUGHTBOX_PROJECT so that the sessions database lives elsewhere.\n" +
		"2. If it is not needed, move it aside: the server creates a new session database in its place."
}

// openDB opens the session database at path, creating it when it does not
// exist or is empty, and refuses (with a *NotOursError) a file that is not
// ours or is damaged, without writing to it.
func openDB(path string, fullSync bool) (*sql.DB, error) {
	fresh, err := checkHeader(path)
	if err != nil {
		return nil, err
	}
	// busy_timeout: another process writing the file makes writers wait
	// (SQLite retries) instead of failing. _txlock=immediate: every
	// transaction here writes, so it takes the write lock when it begins
	// and never fails half-way on an upgrade.
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	// One connection: the process's writes are serialised by SQLite anyway,
	// and PRAGMA data_version (see index.go) is per connection.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if !fresh {
		if err := checkOurs(db, path); err != nil {
			db.Close()
			return nil, err
		}
	}
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode = WAL`).Scan(&mode); err != nil {
		db.Close()
		return nil, classify(path, err)
	}
	sync := "NORMAL" // in WAL mode: a commit survives a crash of the process
	if fullSync {
		sync = "FULL" // and a power failure: the WAL is synced at every commit
	}
	// A checkpoint (copying the WAL into the database) syncs the database
	// file. The background checkpointer (checkpoint.go) does them; the
	// automatic one, at 16000 pages (64 MB), is only a backstop.
	if _, err := db.Exec(`PRAGMA synchronous = ` + sync + `; PRAGMA wal_autocheckpoint = 16000`); err != nil {
		db.Close()
		return nil, classify(path, err)
	}
	tx, err := db.Begin()
	if err != nil {
		db.Close()
		return nil, classify(path, err)
	}
	for _, stmt := range schema {
		if _, err := tx.Exec(stmt); err != nil {
			tx.Rollback()
			db.Close()
			return nil, classify(path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		db.Close()
		return nil, classify(path, err)
	}
	return db, nil
}

// checkHeader reports whether path is missing or empty (a new database),
// and refuses a file that is not an SQLite database at all.
func checkHeader(path string) (fresh bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, head)
	if n == 0 && (err == io.EOF) {
		return true, nil
	}
	if err != nil || !bytes.Equal(head, sqliteHeader) {
		return false, &NotOursError{Path: path, Reason: "it does not start with the SQLite header"}
	}
	return false, nil
}

// checkOurs refuses a SQLite file of another program and a damaged one. A
// SQLite file without any table and without an application id is empty and
// becomes ours.
func checkOurs(db *sql.DB, path string) error {
	var app int64
	if err := db.QueryRow(`PRAGMA application_id`).Scan(&app); err != nil {
		return classify(path, err)
	}
	var objects int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema`).Scan(&objects); err != nil {
		return classify(path, err)
	}
	if app == 0 && objects == 0 {
		return nil
	}
	if app != applicationID {
		return &NotOursError{Path: path, Reason: fmt.Sprintf("its application id is %#x, not thoughtbox's %#x", app, applicationID)}
	}
	var version string
	if err := db.QueryRow(`SELECT value FROM tb_meta WHERE key = 'schema'`).Scan(&version); err != nil {
		return classify(path, err)
	}
	if version != schemaVersion {
		return &NotOursError{Path: path, Reason: fmt.Sprintf("its schema version is %q; this server reads version %q", version, schemaVersion)}
	}
	var check string
	if err := db.QueryRow(`PRAGMA quick_check`).Scan(&check); err != nil {
		return classify(path, err)
	}
	if check != "ok" {
		return &NotOursError{Path: path, Reason: "integrity check: " + check, Corrupt: true}
	}
	return nil
}

// classify turns SQLite's "not a database" and "malformed" errors met while
// opening into a *NotOursError.
func classify(path string, err error) error {
	msg := err.Error()
	switch {
	case bytes.Contains([]byte(msg), []byte("not a database")):
		return &NotOursError{Path: path, Reason: msg}
	case bytes.Contains([]byte(msg), []byte("malformed")), bytes.Contains([]byte(msg), []byte("corrupt")):
		return &NotOursError{Path: path, Reason: msg, Corrupt: true}
	}
	return fmt.Errorf("session database %s: %w", path, err)
}
