package sqlitestore

import (
	"database/sql"
	"errors"
	"sync"
)

// The statements run inside a change's transaction, prepared when the store
// opens: the store has one connection, and a transaction holds it, so a
// statement can not be prepared (on that connection) in the middle of one.
const (
	insertThought = `INSERT INTO thoughts (session_id, pos, node) VALUES (?, ?, ?)`
	updateThought = `UPDATE thoughts SET node = ? WHERE session_id = ? AND pos = ?`
	insertRewrite = `INSERT INTO rewrites (session_id, seq, pos) VALUES (?, ?, ?)`
	updateSession = `UPDATE sessions SET title = ?, description = ?, tags = ?, updated_at = ?, last_accessed_at = ?,
		thought_count = ?, branch_count = ?, seq = ?, rev = (SELECT COALESCE(MAX(rev), 0) + 1 FROM sessions) WHERE id = ? AND seq = ?`
)

// txStatements are the statements prepared when the store opens.
var txStatements = []string{insertThought, updateThought, insertRewrite, updateSession}

// statements holds the store's queries, each prepared once. database/sql
// hands a query given as text to SQLite to compile on every Exec or Query:
// compiling was 14 % of the server's CPU in a load run on sqlite. A
// prepared statement is compiled once on the store's one connection and
// used again, in a transaction too (Tx.Stmt). Only queries written in the
// code go through it, never text built from a request, so it holds a few
// dozen statements at most.
type statements struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
	// unprepared counts the statements run from their text in a
	// transaction because they were not prepared when it began (tests
	// check it stays 0).
	unprepared int
}

// get returns query prepared, preparing it the first time. The lock is not
// held while it prepares: preparing waits for the connection, which a
// transaction may hold while it looks for one of its statements here.
func (p *statements) get(query string) (*sql.Stmt, error) {
	if st := p.lookup(query); st != nil {
		return st, nil
	}
	st, err := p.db.Prepare(query)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if had, ok := p.m[query]; ok {
		_ = st.Close() // prepared by another caller meanwhile
		return had, nil
	}
	if p.m == nil {
		p.m = map[string]*sql.Stmt{}
	}
	p.m[query] = st
	return st, nil
}

// lookup returns query's statement when it is prepared, or nil.
func (p *statements) lookup(query string) *sql.Stmt {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[query]
}

// prepare prepares queries now.
func (p *statements) prepare(queries ...string) error {
	for _, q := range queries {
		if _, err := p.get(q); err != nil {
			return err
		}
	}
	return nil
}

// close closes every statement.
func (p *statements) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, st := range p.m {
		errs = append(errs, st.Close())
	}
	p.m = nil
	return errors.Join(errs...)
}

// scanner is what a query of one row gives: *sql.Row, or the error that
// kept the query from running.
type scanner interface {
	Scan(dest ...any) error
}

type failedRow struct{ err error }

func (r failedRow) Scan(...any) error { return r.err }

// exec runs a statement of the store's code, prepared once.
func (s *Store) exec(query string, args ...any) (sql.Result, error) {
	st, err := s.stmts.get(query)
	if err != nil {
		return nil, err
	}
	return st.Exec(args...)
}

// queryRow runs a query of one row of the store's code, prepared once.
func (s *Store) queryRow(query string, args ...any) scanner {
	st, err := s.stmts.get(query)
	if err != nil {
		return failedRow{err}
	}
	return st.QueryRow(args...)
}

// query runs a query of the store's code, prepared once.
func (s *Store) query(query string, args ...any) (*sql.Rows, error) {
	st, err := s.stmts.get(query)
	if err != nil {
		return nil, err
	}
	return st.Query(args...)
}

// txExec runs one of txStatements in tx; a statement not prepared runs
// from its text, as preparing it would wait for the connection tx holds.
func (s *Store) txExec(tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st := s.stmts.lookup(query); st != nil {
		return tx.Stmt(st).Exec(args...)
	}
	s.stmts.mu.Lock()
	s.stmts.unprepared++
	s.stmts.mu.Unlock()
	return tx.Exec(query, args...)
}
