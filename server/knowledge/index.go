package knowledge

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// schemaVersion changes whenever the tables change; an index of another
// version is rebuilt.
const schemaVersion = "1"

// schema creates the index's tables. seq keeps insertion order.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS entities (
		seq INTEGER PRIMARY KEY AUTOINCREMENT,
		id TEXT NOT NULL UNIQUE,
		name TEXT NOT NULL,
		type TEXT NOT NULL,
		label TEXT NOT NULL,
		properties TEXT NOT NULL,
		created_at TEXT NOT NULL,
		updated_at TEXT NOT NULL,
		created_by TEXT,
		visibility TEXT NOT NULL,
		valid_from TEXT NOT NULL,
		valid_to TEXT,
		superseded_by TEXT,
		access_count INTEGER NOT NULL DEFAULT 0,
		last_accessed_at TEXT,
		importance_score REAL NOT NULL DEFAULT 0.5,
		UNIQUE (name, type))`,
	`CREATE TABLE IF NOT EXISTS relations (
		seq INTEGER PRIMARY KEY AUTOINCREMENT,
		id TEXT NOT NULL UNIQUE,
		from_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
		to_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
		type TEXT NOT NULL,
		properties TEXT NOT NULL,
		created_at TEXT NOT NULL,
		created_by TEXT)`,
	`CREATE INDEX IF NOT EXISTS relations_from ON relations(from_id)`,
	`CREATE TABLE IF NOT EXISTS observations (
		seq INTEGER PRIMARY KEY AUTOINCREMENT,
		id TEXT NOT NULL UNIQUE,
		entity_id TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
		content TEXT NOT NULL,
		source_session TEXT,
		added_by TEXT,
		added_at TEXT NOT NULL,
		valid_from TEXT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS observations_entity ON observations(entity_id)`,
}

// indexFiles are memory.db and the files SQLite keeps beside it; a rebuild
// removes them all, so that no stale journal is applied to the new file.
var indexSuffixes = []string{"", "-journal", "-wal", "-shm"}

// openIndex opens (creating it if needed) the SQLite file at path. The
// index can always be rebuilt from graph.jsonl, so SQLite does not fsync it;
// every write happens under the directory lock, so one connection per
// process is enough.
//
// The index is in WAL mode: a commit appends to the open -wal file instead
// of creating a rollback journal each time, and a crash leaves the index at
// its last whole commit (the frames are checksummed), behind graph.jsonl,
// which sync then applies. A process closes its connection when another
// process has replaced memory.db by a rebuilt one; SQLite notices that the
// file it had open was moved and then leaves the -wal of the new one alone.
func openIndex(path string) (*sql.DB, error) {
	dsn := "file:" + path + "?_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	for _, stmt := range schema {
		if _, err := db.Exec(stmt); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

// checkIndex reports whether db is whole and of this schema version.
func checkIndex(db *sql.DB) error {
	var res string
	if err := db.QueryRow(`PRAGMA quick_check`).Scan(&res); err != nil {
		return err
	}
	if res != "ok" {
		return fmt.Errorf("quick_check: %s", res)
	}
	v, err := metaGet(db, "schema")
	if err != nil {
		return err
	}
	if v != schemaVersion {
		return fmt.Errorf("schema version %q, want %q", v, schemaVersion)
	}
	return nil
}

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	Exec(query string, args ...any) (sql.Result, error)
	QueryRow(query string, args ...any) *sql.Row
	Query(query string, args ...any) (*sql.Rows, error)
}

func metaGet(q querier, key string) (string, error) {
	var v string
	err := q.QueryRow(`SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// position is how much of graph.jsonl the index holds: the byte offset of
// the end of the last line applied, and that line's length and checksum,
// so that a file replaced or truncated under the index is noticed.
type position struct {
	Offset  int64
	TailLen int64
	TailSum string
}

func readPosition(q querier) (position, error) {
	var p position
	rows, err := q.Query(`SELECT key, value FROM meta WHERE key IN ('offset', 'tail_len', 'tail_sum')`)
	if err != nil {
		return p, err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return p, err
		}
		switch k {
		case "offset":
			p.Offset, err = strconv.ParseInt(v, 10, 64)
		case "tail_len":
			p.TailLen, err = strconv.ParseInt(v, 10, 64)
		case "tail_sum":
			p.TailSum = v
		}
		if err != nil {
			return p, fmt.Errorf("meta %s: %w", k, err)
		}
	}
	return p, rows.Err()
}

func writePosition(q querier, p position) error {
	_, err := q.Exec(`INSERT INTO meta(key, value) VALUES ('offset', ?1), ('tail_len', ?2), ('tail_sum', ?3), ('schema', ?4)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
		strconv.FormatInt(p.Offset, 10), strconv.FormatInt(p.TailLen, 10), p.TailSum, schemaVersion)
	return err
}

// applyRecord adds one record to the index. A record that can not be added
// (a second entity with the same name and type, an observation or relation
// of an unknown entity, a repeated id) is skipped: it reports false.
func applyRecord(tx querier, r record) (bool, error) {
	var res sql.Result
	var err error
	switch r.Kind {
	case kindEntity:
		props := r.Properties
		if len(props) == 0 {
			props = RawJSON("{}")
		}
		vis := r.Visibility
		if vis == "" {
			vis = "public"
		}
		res, err = tx.Exec(`INSERT OR IGNORE INTO entities(id, name, type, label, properties, created_at, updated_at, created_by,
			visibility, valid_from, last_accessed_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.Name, r.EntityType, r.Label, string(props), r.CreatedAt, orValue(r.UpdatedAt, r.CreatedAt), nullable(r.CreatedBy),
			vis, orValue(r.ValidFrom, r.CreatedAt), orValue(r.CreatedAt, r.ValidFrom))
	case kindObservation:
		res, err = tx.Exec(`INSERT OR IGNORE INTO observations(id, entity_id, content, source_session, added_by, added_at, valid_from)
			SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM entities WHERE id = ?)`,
			r.ID, r.EntityID, r.Content, nullable(r.SourceSession), nullable(r.AddedBy), r.AddedAt, orValue(r.ValidFrom, r.AddedAt), r.EntityID)
	case kindRelation:
		props := r.Properties
		if len(props) == 0 {
			props = RawJSON("{}")
		}
		res, err = tx.Exec(`INSERT OR IGNORE INTO relations(id, from_id, to_id, type, properties, created_at, created_by)
			SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM entities WHERE id = ?) AND EXISTS (SELECT 1 FROM entities WHERE id = ?)`,
			r.ID, r.FromID, r.ToID, r.RelationType, string(props), r.CreatedAt, nullable(r.CreatedBy), r.FromID, r.ToID)
	default:
		return false, nil
	}
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func orValue(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// removeIndex deletes memory.db and SQLite's files beside it.
func removeIndex(path string) error {
	var errs []error
	for _, suffix := range indexSuffixes {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
