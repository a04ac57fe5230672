package obsgateway

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sync"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// DefaultSessionLimit is how many sessions the sessions operation lists
// when the call gives no limit.
const DefaultSessionLimit = 50

// ActiveWindow is how recently a session must have been used to be active.
const ActiveWindow = 30 * time.Minute

// sessionItem is one session of the answer.
type sessionItem struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Description  *string  `json:"description,omitempty"`
	ThoughtCount int      `json:"thoughtCount"`
	BranchCount  int      `json:"branchCount"`
	CreatedAt    string   `json:"createdAt"`
	LastActivity string   `json:"lastActivity"`
	Status       string   `json:"status"`
	Tags         []string `json:"tags,omitempty"`
	Metrics      *struct {
		RevisionsCount int `json:"revisionsCount"`
	} `json:"metrics,omitempty"`
}

type sessionsResult struct {
	Sessions []sessionItem `json:"sessions"`
	Total    int           `json:"total"`
}

func (g *Gateway) item(s storage.Session) sessionItem {
	last := s.LastAccessedAt
	if last == "" {
		last = s.UpdatedAt
	}
	status := "idle"
	if t, err := time.Parse(time.RFC3339Nano, last); err == nil && g.cfg.Now().Sub(t) <= ActiveWindow {
		status = "active"
	}
	return sessionItem{ID: s.ID, Title: s.Title, ThoughtCount: s.ThoughtCount, BranchCount: s.BranchCount,
		CreatedAt: s.CreatedAt, LastActivity: last, Status: status, Tags: s.Tags}
}

// sessions lists the server's reasoning sessions, most recently updated
// first; total counts those matching the status filter.
func (g *Gateway) sessions(_ context.Context, a Args) (any, error) {
	if g.cfg.Store == nil {
		return nil, errors.New("this server has no session store")
	}
	limit := DefaultSessionLimit
	if a.Limit != nil {
		limit = *a.Limit
	}
	res := sessionsResult{Sessions: []sessionItem{}}
	for _, s := range g.cfg.Store.List(storage.Filter{}) {
		it := g.item(s)
		if a.Status != "" && a.Status != "all" && it.Status != a.Status {
			continue
		}
		res.Total++
		if len(res.Sessions) < limit {
			res.Sessions = append(res.Sessions, it)
		}
	}
	return res, nil
}

// sessionIDPattern is what a session id may look like: letters, digits,
// '-', '_' and '.', at most 128 characters. Compiled when first used, as
// fsstore's is.
var sessionIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`) })

// sessionInfo describes one session with its revision count.
func (g *Gateway) sessionInfo(_ context.Context, a Args) (any, error) {
	if a.SessionID == "" {
		return nil, missing("sessionId")
	}
	if !sessionIDPattern().MatchString(a.SessionID) {
		return nil, &ArgError{Message: fmt.Sprintf("Invalid argument 'sessionId': %q is not a session id (letters, digits, '.', '_' and '-')", clip.String(a.SessionID)), Field: "sessionId"}
	}
	if g.cfg.Store == nil {
		return nil, errors.New("this server has no session store")
	}
	c, err := g.cfg.Store.Get(a.SessionID)
	if errors.Is(err, storage.ErrSessionNotFound) {
		return nil, errors.New("Session not found: " + a.SessionID)
	}
	if err != nil {
		return nil, err
	}
	s := c.Session()
	it := g.item(s)
	it.Description = s.Description
	it.Metrics = &struct {
		RevisionsCount int `json:"revisionsCount"`
	}{}
	for _, n := range c.Nodes() {
		if n.Data.Revision() {
			it.Metrics.RevisionsCount++
		}
	}
	return it, nil
}

// dashboardPattern is what a dashboard uid may look like (Grafana's uids:
// letters, digits, '-' and '_', at most 40 characters).
var dashboardPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`) })

type dashboardResult struct {
	URL       string `json:"url"`
	Dashboard string `json:"dashboard"`
}

// dashboardURL links to a Grafana dashboard; it makes no request.
func (g *Gateway) dashboardURL(_ context.Context, a Args) (any, error) {
	name := a.Dashboard
	if name == "" {
		name = DefaultDashboard
	}
	if !dashboardPattern().MatchString(name) {
		return nil, &ArgError{Message: fmt.Sprintf("Invalid argument 'dashboard': %q is not a dashboard uid (1-40 letters, digits, '-' or '_')", clip.String(name)), Field: "dashboard"}
	}
	p := url.PathEscape(name)
	return dashboardResult{URL: g.cfg.GrafanaURL + "/d/" + p + "/" + p, Dashboard: name}, nil
}
