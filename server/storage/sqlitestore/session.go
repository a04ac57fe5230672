package sqlitestore

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// state is one session this process has read: its chain and where the chain
// stands against the database. It is the chain's storage.Persister.
type state struct {
	id    string
	store *Store
	lock  *sessionLock
	chain *storage.Chain

	// ownMu serialises taking and giving up the session's lock; holders
	// counts the Opens (and the Create) not yet released.
	ownMu   sync.Mutex
	holders int

	// syncMu serialises bringing the chain up to date with the database.
	syncMu sync.Mutex

	// mu guards the fields below; the Persister methods run under the
	// chain's lock and take it.
	mu    sync.Mutex
	owned bool
	// seq is the session's change count the chain reflects; count the
	// number of thoughts read or written (their creation positions are
	// 1..count); pos maps a node id to its position.
	seq   int64
	count int64
	pos   map[string]int64
}

// errNotOpen reports a write to a session this process does not hold the
// lock of; it would race with the process that does.
var errNotOpen = errors.New("the session is not open for writing in this process")

// errChangedElsewhere reports a write that found the session changed by
// someone else since this process read it (its lock was not respected).
var errChangedElsewhere = errors.New("the session was changed by another process meanwhile; nothing was written")

// Append commits the new node and the session's metadata in one
// transaction. The predecessor's next list is not stored: links are rebuilt
// from prev when a session is read.
func (st *state) Append(s *storage.Session, n *storage.Node, _ *storage.Node) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.owned {
		return errNotOpen
	}
	pos := st.count + 1
	seq := st.seq + 1
	err := st.store.commit(st.id, st.seq, seq, s, func(tx *sql.Tx) error {
		_, err := st.store.txExec(tx, insertThought,
			st.id, pos, string(n.AppendJSON(nil)))
		return err
	})
	if err != nil {
		return err
	}
	st.seq, st.count = seq, pos
	st.pos[n.ID] = pos
	return nil
}

// Rewrite commits a changed node (one that gained a critique).
func (st *state) Rewrite(s *storage.Session, n *storage.Node) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.owned {
		return errNotOpen
	}
	pos, ok := st.pos[n.ID]
	if !ok {
		return fmt.Errorf("thought %s is not stored", n.ID)
	}
	seq := st.seq + 1
	err := st.store.commit(st.id, st.seq, seq, s, func(tx *sql.Tx) error {
		if _, err := st.store.txExec(tx, updateThought,
			string(n.AppendJSON(nil)), st.id, pos); err != nil {
			return err
		}
		_, err := st.store.txExec(tx, insertRewrite, st.id, seq, pos)
		return err
	})
	if err != nil {
		return err
	}
	st.seq = seq
	return nil
}

// takeOver marks the session owned after its lock was taken, once the chain
// holds everything other processes wrote. Caller holds ownMu.
func (st *state) takeOver() error {
	st.syncMu.Lock()
	defer st.syncMu.Unlock()
	var seq int64
	err := st.store.queryRow(`SELECT seq FROM sessions WHERE id = ?`, st.id).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return storage.NotFound(st.id)
	}
	if err != nil {
		return err
	}
	if err := st.readChanges(seq); err != nil {
		return err
	}
	st.mu.Lock()
	st.owned = true
	st.mu.Unlock()
	return nil
}

// disown gives up the session's lock. Caller holds ownMu.
func (st *state) disown() {
	st.syncMu.Lock()
	st.mu.Lock()
	st.owned = false
	st.mu.Unlock()
	st.syncMu.Unlock()
	if err := st.lock.release(); err != nil {
		st.store.log.Warn("cannot unlock session", "session", st.id, "err", err)
	}
}

// catchUp reads what other processes changed when the database holds a
// newer version of the session (seq) than the chain. A session this
// process has open changes only here, so it is never read back.
func (st *state) catchUp(seq int64) {
	st.syncMu.Lock()
	defer st.syncMu.Unlock()
	st.mu.Lock()
	current := st.owned || st.seq >= seq
	st.mu.Unlock()
	if current {
		return
	}
	if err := st.readChanges(seq); err != nil {
		st.store.log.Warn("reading a session changed by another process failed", "session", st.id, "err", err)
	}
}

// storedNode is one row of thoughts.
type storedNode struct {
	pos  int64
	node string
}

// readChanges reads the thoughts written or rewritten since the chain's
// version into the chain, and the session's metadata; seq is the session's
// change count read before them. Caller holds syncMu, and no one in this
// process writes the session meanwhile.
func (st *state) readChanges(seq int64) error {
	st.mu.Lock()
	from, known := st.seq, st.count
	st.mu.Unlock()
	if seq <= from {
		return nil
	}
	s := st.store
	// Thoughts rewritten since, among those already read, then the new ones.
	changed, err := s.readNodes(`SELECT t.pos, t.node FROM rewrites r JOIN thoughts t ON t.session_id = r.session_id AND t.pos = r.pos
		WHERE r.session_id = ? AND r.seq > ? AND r.pos <= ? ORDER BY r.seq`, st.id, from, known)
	if err != nil {
		return err
	}
	added, err := s.readNodes(`SELECT pos, node FROM thoughts WHERE session_id = ? AND pos > ? ORDER BY pos`, st.id, known)
	if err != nil {
		return err
	}
	changed = append(changed, added...)
	meta, _, err := s.readSession(st.id)
	if err != nil {
		return err
	}
	st.mu.Lock()
	count := st.count
	st.mu.Unlock()
	var problems []string
	for _, r := range changed {
		var n storage.Node
		if err := json.Unmarshal([]byte(r.node), &n); err != nil || n.ID == "" {
			problems = append(problems, fmt.Sprintf("thought record %d cannot be read (%v)", r.pos, err))
			continue
		}
		if r.pos <= count {
			st.chain.Reload(n)
		} else {
			st.chain.Load(n)
			count = r.pos
		}
		st.mu.Lock()
		st.pos[n.ID] = r.pos
		st.mu.Unlock()
	}
	if mine := st.chain.Session().LastAccessedAt; mine > meta.sess.LastAccessedAt {
		meta.sess.LastAccessedAt = mine // read here since the other process wrote
	}
	st.chain.SetMetadata(meta.sess)
	// The chain stands at seq, read before the thoughts: a change committed
	// while they were read may be in the chain already, or not, so it is
	// read again (harmlessly) next time.
	st.mu.Lock()
	st.seq, st.count = max(seq, st.seq), max(count, st.count)
	st.mu.Unlock()
	if len(problems) > 0 {
		s.mu.Lock()
		s.damaged[st.id] = fmt.Sprintf("%d thought record(s) of the session cannot be read: %s", len(problems), problems[0])
		s.mu.Unlock()
		s.log.Warn("damaged session", "session", st.id, "problems", problems)
	}
	return nil
}

// readNodes runs a query of (pos, node) rows.
func (s *Store) readNodes(query string, args ...any) ([]storedNode, error) {
	rows, err := s.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storedNode
	for rows.Next() {
		var r storedNode
		if err := rows.Scan(&r.pos, &r.node); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// load returns the state of session id, reading its thoughts when this
// process has not read them yet.
func (s *Store) load(id string) (*state, error) {
	s.mu.Lock()
	st := s.states[id]
	s.mu.Unlock()
	if st != nil {
		return st, nil
	}
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	s.mu.Lock()
	st = s.states[id]
	s.mu.Unlock()
	if st != nil {
		return st, nil
	}
	meta, n, err := s.readSession(id)
	if err != nil {
		return nil, err
	}
	st = &state{id: id, store: s, lock: newSessionLock(s.lockDir, id), pos: map[string]int64{}}
	head := meta.sess
	head.ThoughtCount, head.BranchCount = 0, 0
	st.chain = storage.NewChain(head, st, s.now)
	st.syncMu.Lock()
	err = st.readChanges(meta.seq)
	st.syncMu.Unlock()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.states[id] = st
	if s.index[id] == nil {
		s.index[id] = newEntry(meta.sess, n, meta.seq)
		s.noted(id)
	}
	s.mu.Unlock()
	return st, nil
}

// sessionRow is a session's metadata as stored, with its change count.
type sessionRow struct {
	sess storage.Session
	seq  int64
}

// readSession reads one session's row; an unknown id is
// storage.ErrSessionNotFound. It returns the creation rank too.
func (s *Store) readSession(id string) (sessionRow, int64, error) {
	var r sessionRow
	var n int64
	var desc sql.NullString
	var tags string
	err := s.queryRow(`SELECT n, title, description, tags, created_at, updated_at, last_accessed_at, thought_count, branch_count, seq
		FROM sessions WHERE id = ?`, id).Scan(&n, &r.sess.Title, &desc, &tags, &r.sess.CreatedAt, &r.sess.UpdatedAt,
		&r.sess.LastAccessedAt, &r.sess.ThoughtCount, &r.sess.BranchCount, &r.seq)
	if errors.Is(err, sql.ErrNoRows) {
		return r, 0, storage.NotFound(id)
	}
	if err != nil {
		return r, 0, err
	}
	r.sess.ID = id
	if desc.Valid {
		d := desc.String
		r.sess.Description = &d
	}
	if err := json.Unmarshal([]byte(tags), &r.sess.Tags); err != nil || r.sess.Tags == nil {
		r.sess.Tags = []string{}
	}
	return r, n, nil
}

// commit runs write and stores the session's metadata s in one transaction,
// moving the session from change oldSeq to newSeq, and updates the index.
// It fails, writing nothing, when the stored session is not at oldSeq.
func (s *Store) commit(id string, oldSeq, newSeq int64, sess *storage.Session, write func(*sql.Tx) error) error {
	tags, err := json.Marshal(sess.Tags)
	if err != nil {
		return err
	}
	if sess.Tags == nil {
		tags = []byte("[]")
	}
	var desc any
	if sess.Description != nil {
		desc = *sess.Description
	}
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	res, err := s.txExec(tx, updateSession,
		sess.Title, desc, string(tags), sess.UpdatedAt, sess.LastAccessedAt, sess.ThoughtCount, sess.BranchCount, newSeq, id, oldSeq)
	if err == nil {
		if n, _ := res.RowsAffected(); n != 1 {
			err = errChangedElsewhere
		}
	}
	if err == nil {
		err = write(tx)
	}
	if err == nil {
		err = tx.Commit()
	} else {
		_ = tx.Rollback()
	}
	if err != nil {
		return err
	}
	copied := *sess
	copied.Tags = append([]string{}, sess.Tags...)
	s.mu.Lock()
	if e := s.index[id]; e != nil {
		e.set(copied, newSeq)
		s.noted(id)
	}
	s.mu.Unlock()
	return nil
}
