package sessions

import (
	"context"
	"errors"
	"fmt"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/ledger"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

type listResult struct {
	Sessions []storage.Session `json:"sessions"`
	Count    int               `json:"count"`
	HasMore  bool              `json:"hasMore"`
	// NextCursor continues the listing after this page (only when
	// HasMore).
	NextCursor string `json:"nextCursor,omitempty"`
}

// list pages through sessions, most recently updated first, optionally
// keeping those with any of the given tags. A page is chosen by offset, or
// by the cursor a previous page returned, which stays right while sessions
// are updated between the calls.
func (s *Host) list(_ context.Context, _ *ledger.Handler, a Args) (any, error) {
	limit, err := a.Int("limit", 20, 1, 100)
	if err != nil {
		return nil, err
	}
	offset, err := a.Int("offset", 0, 0, 1<<31-1)
	if err != nil {
		return nil, err
	}
	tags, err := a.Strings("tags")
	if err != nil {
		return nil, err
	}
	cursor, hasCursor, err := a.String("cursor")
	if err != nil {
		return nil, err
	}
	var page []storage.Session
	if hasCursor {
		if a.present("offset") {
			return nil, errors.New("give either cursor or offset, not both")
		}
		pos, err := s.decodeCursor(cursor, tags)
		if err != nil {
			return nil, err
		}
		all := s.store.List(storage.Filter{AnyTags: tags})
		page = all[pos.after(all):]
	} else {
		// One more than the page tells whether there are more.
		all := s.store.List(storage.Filter{AnyTags: tags, Limit: offset + limit + 1})
		page = all[min(offset, len(all)):]
	}
	res := listResult{Sessions: page}
	if len(page) > limit {
		res.Sessions, res.HasMore = page[:limit], true
		res.NextCursor = s.encodeCursor(res.Sessions[limit-1], tags)
	}
	res.Count = len(res.Sessions)
	return res, nil
}

type getResult struct {
	Session  storage.Session       `json:"session"`
	Thoughts []storage.ThoughtData `json:"thoughts"`
	Branches jsonx.Object          `json:"branches"`
}

// get returns a session with its main chain and every branch.
func (s *Host) get(_ context.Context, _ *ledger.Handler, a Args) (any, error) {
	c, err := s.chain(a)
	if err != nil {
		return nil, err
	}
	res := getResult{Session: c.Session(), Thoughts: data(c.Main()), Branches: jsonx.Object{}}
	for _, b := range c.Branches() {
		res.Branches.Set(b.ID, data(c.Branch(b.ID)))
	}
	c.Touch()
	return res, nil
}

func data(nodes []storage.Node) []storage.ThoughtData {
	out := make([]storage.ThoughtData, len(nodes))
	for i, n := range nodes {
		out[i] = n.Data
	}
	return out
}

type resumeResult struct {
	Success      bool                 `json:"success"`
	SessionID    string               `json:"sessionId"`
	Session      storage.Session      `json:"session"`
	ThoughtCount int                  `json:"thoughtCount"`
	LastThought  *storage.ThoughtData `json:"lastThought"`
	Message      string               `json:"message"`
}

// resume checks the session's files and makes it the connection's current
// reasoning session.
func (s *Host) resume(_ context.Context, h *ledger.Handler, a Args) (any, error) {
	id, err := a.sessionID()
	if err != nil {
		return nil, err
	}
	c, err := h.Load(id)
	if errors.Is(err, storage.ErrSessionNotFound) {
		return nil, fmt.Errorf("Session %s not found", clip.String(id))
	}
	if err != nil {
		return nil, err
	}
	main := c.Main()
	res := resumeResult{Success: true, SessionID: id, Session: c.Session(), ThoughtCount: len(main)}
	next := 1
	if len(main) > 0 {
		last := main[len(main)-1].Data
		res.LastThought = &last
		next = last.ThoughtNumber + 1
	}
	res.Message = fmt.Sprintf("Session resumed. Continue reasoning from thought %d: the next thought without a thoughtNumber gets number %d.", next, next)
	return res, nil
}
