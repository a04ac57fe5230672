package sqlitestore

import (
	"database/sql"
	"encoding/json"
	"slices"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// The index holds the metadata of every session of the database, so that
// List reads nothing when no other process wrote. PRAGMA data_version
// changes when another connection commits; then the sessions whose rev is
// above the highest one read so far are read again.

// changedElsewhere reports whether another process committed since the
// index was last refreshed.
func (s *Store) changedElsewhere() bool {
	var v int64
	if err := s.queryRow(`PRAGMA data_version`).Scan(&v); err != nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return v != s.dataVersion || !s.indexed
}

func (s *Store) isIndexed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.indexed
}

// refreshIndex reads the sessions changed since the last refresh.
func (s *Store) refreshIndex() error {
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	var version int64
	if err := s.queryRow(`PRAGMA data_version`).Scan(&version); err != nil {
		return err
	}
	s.mu.Lock()
	from := s.knownRev
	s.mu.Unlock()
	rows, err := s.query(`SELECT n, id, title, description, tags, created_at, updated_at, last_accessed_at, thought_count, branch_count, seq, rev
		FROM sessions WHERE rev > ? ORDER BY rev`, from)
	if err != nil {
		return err
	}
	type read struct {
		e   entry
		rev int64
	}
	var got []read
	for rows.Next() {
		var r read
		var desc sql.NullString
		var tags string
		if err := rows.Scan(&r.e.n, &r.e.sess.ID, &r.e.sess.Title, &desc, &tags, &r.e.sess.CreatedAt, &r.e.sess.UpdatedAt,
			&r.e.sess.LastAccessedAt, &r.e.sess.ThoughtCount, &r.e.sess.BranchCount, &r.e.seq, &r.rev); err != nil {
			rows.Close()
			return err
		}
		if desc.Valid {
			d := desc.String
			r.e.sess.Description = &d
		}
		if json.Unmarshal([]byte(tags), &r.e.sess.Tags) != nil || r.e.sess.Tags == nil {
			r.e.sess.Tags = []string{}
		}
		got = append(got, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range got {
		if old := s.index[r.e.sess.ID]; old != nil {
			if r.e.seq < old.seq {
				continue // this process committed a newer change since
			}
		}
		s.index[r.e.sess.ID] = newEntry(r.e.sess, r.e.n, r.e.seq)
		s.noted(r.e.sess.ID)
		s.knownRev = max(s.knownRev, r.rev)
	}
	s.dataVersion, s.indexed = version, true
	return nil
}

// noted puts the index's entry of id, new or changed, in List's order and
// under its tags. The caller holds s.mu.
func (s *Store) noted(id string) {
	e := s.index[id]
	s.recent.Add(id, e.sess.UpdatedAt, e.n)
	s.recent.Move(id, e.sess.UpdatedAt)
	for _, t := range e.sess.Tags {
		ids := s.tagged[t]
		if ids == nil {
			ids = map[string]struct{}{}
			s.tagged[t] = ids
		}
		ids[id] = struct{}{}
	}
}

// listIndexed answers List from the index: it walks the sessions in List's
// order (recent) until it has Limit matches, or, by tags, the sessions that
// carried one of them, sorted.
func (s *Store) listIndexed(f storage.Filter) []storage.Session {
	search := strings.ToLower(f.Search)
	type hit struct {
		sess storage.Session
		st   *state
	}
	var hits []hit
	s.mu.Lock()
	sessions := s.recent.Newest()
	if len(f.AnyTags) > 0 {
		var tagged []string
		seen := map[string]bool{}
		for _, t := range f.AnyTags {
			for id := range s.tagged[t] {
				if !seen[id] {
					seen[id] = true
					tagged = append(tagged, id)
				}
			}
		}
		slices.SortFunc(tagged, func(x, y string) int {
			a, b := s.index[x], s.index[y]
			return storage.ListOrder(a.sess.UpdatedAt, a.n, b.sess.UpdatedAt, b.n)
		})
		sessions = slices.Values(tagged)
	}
	for id := range sessions {
		if e := s.index[id]; e.matches(f.AnyTags, search) {
			hits = append(hits, hit{e.sess, s.states[e.sess.ID]})
			if f.Limit > 0 && len(hits) == f.Limit {
				break
			}
		}
	}
	s.mu.Unlock()
	out := make([]storage.Session, len(hits))
	for i, h := range hits {
		out[i] = h.sess
		out[i].Tags = slices.Clone(h.sess.Tags)
		if h.st != nil {
			out[i].LastAccessedAt = h.st.chain.Session().LastAccessedAt
		}
	}
	return out
}
