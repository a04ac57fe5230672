package sessions

import (
	"context"
	"errors"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/ledger"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// maxSearchResults bounds the answer of search, whatever the query.
const maxSearchResults = 100

type searchResult struct {
	Sessions []storage.Session `json:"sessions"`
	Count    int               `json:"count"`
	// Query echoes the query (a bounded prefix of a very long one).
	Query   string `json:"query"`
	HasMore bool   `json:"hasMore"`
}

// search finds the sessions whose title, description or one of whose tags
// contains the query, ignoring case, most recently updated first. Any
// query is safe: it is only ever compared, and the answer holds at most
// limit sessions.
func (s *Host) search(_ context.Context, _ *ledger.Handler, a Args) (any, error) {
	query, ok, err := a.String("query")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("query is required: the text to look for in titles, descriptions and tags")
	}
	limit, err := a.Int("limit", 10, 1, maxSearchResults)
	if err != nil {
		return nil, err
	}
	found := s.store.List(storage.Filter{Search: query, Limit: limit + 1})
	res := searchResult{Sessions: found, Query: clip.String(query)}
	if len(found) > limit {
		res.Sessions, res.HasMore = found[:limit], true
	}
	res.Count = len(res.Sessions)
	return res, nil
}
