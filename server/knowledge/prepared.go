package knowledge

import (
	"context"
	"database/sql"
)

// maxPrepared bounds the statements kept prepared per index connection;
// the queries are constants of this package (and the few shapes of the
// list filters), so the bound is never reached in practice.
const maxPrepared = 64

// statements prepares each query once per index database and keeps it:
// SQLite compiles a statement in about as long as it takes to run one of
// these small inserts. The index has one connection, which a transaction
// holds, so a query first met in a transaction runs unprepared there and
// is prepared before the next transaction begins.
type statements struct {
	db      *sql.DB
	m       map[string]*sql.Stmt
	pending []string
	failed  map[string]bool
}

func newStatements(db *sql.DB) *statements {
	return &statements{db: db, m: make(map[string]*sql.Stmt), failed: make(map[string]bool)}
}

// get returns the prepared form of query, or nil when it is not prepared
// (yet): the caller then runs it unprepared.
func (p *statements) get(query string) *sql.Stmt {
	if st, ok := p.m[query]; ok {
		return st
	}
	if len(p.m)+len(p.pending) < maxPrepared && !p.failed[query] {
		p.pending = append(p.pending, query)
	}
	return nil
}

// prepare prepares the queries met since the last call; it runs while no
// transaction holds the connection. A query SQLite refuses is not tried
// again (running it unprepared reports the error).
func (p *statements) prepare() {
	for _, q := range p.pending {
		if _, ok := p.m[q]; ok || p.failed[q] {
			continue
		}
		st, err := p.db.Prepare(q)
		if err != nil {
			p.failed[q] = true
			continue
		}
		p.m[q] = st
	}
	p.pending = p.pending[:0]
}

// preparedTx is a transaction that runs its queries through the index's
// prepared statements.
type preparedTx struct {
	*sql.Tx
	stmts *statements
}

// begin starts a transaction on the index whose statements are stmts.
func begin(stmts *statements) (preparedTx, error) {
	stmts.prepare()
	tx, err := stmts.db.BeginTx(context.Background(), nil)
	return preparedTx{Tx: tx, stmts: stmts}, err
}

// Exec runs query in the transaction.
func (t preparedTx) Exec(query string, args ...any) (sql.Result, error) {
	if st := t.stmts.get(query); st != nil {
		return t.Tx.Stmt(st).Exec(args...)
	}
	return t.Tx.Exec(query, args...)
}

// QueryRow runs query in the transaction.
func (t preparedTx) QueryRow(query string, args ...any) *sql.Row {
	if st := t.stmts.get(query); st != nil {
		return t.Tx.Stmt(st).QueryRow(args...)
	}
	return t.Tx.QueryRow(query, args...)
}

// Query runs query in the transaction.
func (t preparedTx) Query(query string, args ...any) (*sql.Rows, error) {
	if st := t.stmts.get(query); st != nil {
		return t.Tx.Stmt(st).Query(args...)
	}
	return t.Tx.Query(query, args...)
}
