package obsgateway_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/obsgateway"
	"github.com/thoughtbox-bench/tbbench/server/reply"
	"github.com/thoughtbox-bench/tbbench/server/storage"
	"github.com/thoughtbox-bench/tbbench/server/storage/memstore"
)

// fake is a fake Prometheus and Grafana on one listener that records the
// requests it gets.
type fake struct {
	mu       sync.Mutex
	requests []seen
	srv      *httptest.Server
	// status overrides the answer's status for a path.
	status map[string]int
}

type seen struct {
	Path   string
	Query  url.Values
	Accept string
}

func newFake(t *testing.T) *fake {
	f := &fake{status: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, seen{r.URL.Path, r.URL.Query(), r.Header.Get("Accept")})
	code := f.status[r.URL.Path]
	f.mu.Unlock()
	if code != 0 {
		w.WriteHeader(code)
		w.Write([]byte(`{"status":"error","errorType":"internal","error":"boom"}`))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/-/healthy":
		w.Write([]byte("Prometheus Server is Healthy.\n"))
	case "/api/v1/targets":
		w.Write([]byte(`{"status":"success","data":{"activeTargets":[{"health":"up"},{"health":"down"}]}}`))
	case "/api/v1/query":
		switch r.URL.Query().Get("query") {
		case "mcp_sidecar_upstream_available or mcp_upstream_available":
			w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000,"1"]}]}}`))
		case "mcp_sidecar_active_requests or mcp_active_connections":
			w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000,"3"]}]}}`))
		default:
			w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[]}}`))
		}
	case "/api/v1/query_range":
		w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[]}}`))
	case "/api/v1/alerts":
		w.Write([]byte(`{"status":"success","data":{"alerts":[
			{"labels":{"alertname":"HighLatency","severity":"warning"},"annotations":{"summary":"slow","description":"p95 high"},"state":"firing","activeAt":"2026-01-01T00:00:00Z","value":"1e+00"},
			{"labels":{"severity":"info"},"annotations":{},"state":"pending","activeAt":"2026-01-01T00:00:00Z","value":"0"}]}}`))
	case "/api/health":
		w.Write([]byte(`{"commit":"abc","database":"ok","version":"11.0.0"}`))
	default:
		http.NotFound(w, r)
	}
}

func (f *fake) seen() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.requests...)
}

func call(t *testing.T, g *obsgateway.Gateway, op string, args any) (map[string]any, reply.Reply) {
	t.Helper()
	raw := map[string]any{"operation": op}
	if args != nil {
		raw["args"] = args
	}
	b, _ := json.Marshal(raw)
	r := g.Call(context.Background(), b)
	var m map[string]any
	if err := json.Unmarshal([]byte(r.FirstText()), &m); err != nil {
		t.Fatalf("%s: the answer is not a JSON object: %s", op, r.FirstText())
	}
	return m, r
}

func ok(t *testing.T, g *obsgateway.Gateway, op string, args any) map[string]any {
	t.Helper()
	m, r := call(t, g, op, args)
	if r.IsError {
		t.Fatalf("%s %v failed: %s", op, args, r.FirstText())
	}
	return m
}

func fails(t *testing.T, g *obsgateway.Gateway, op string, args any, words ...string) map[string]any {
	t.Helper()
	m, r := call(t, g, op, args)
	if !r.IsError {
		t.Fatalf("%s %v succeeded: %s", op, args, r.FirstText())
	}
	msg, _ := m["error"].(string)
	for _, w := range words {
		if !strings.Contains(msg, w) {
			t.Errorf("%s %v: the error %q does not say %q", op, args, msg, w)
		}
	}
	return m
}

func TestQueriesArePassedAsParameters(t *testing.T) {
	f := newFake(t)
	g := obsgateway.New(obsgateway.Config{PrometheusURL: f.srv.URL + "/", GrafanaURL: f.srv.URL})
	// A query with characters that would break a URL or PromQL if spliced.
	q := `sum(rate(x{job="a&b",path=~"/x#y"}[5m])) or vector(1) # ?time=0`
	m := ok(t, g, "metrics", map[string]any{"query": q, "time": "1700000000"})
	if m["status"] != "success" || m["data"].(map[string]any)["resultType"] != "vector" {
		t.Errorf("the answer is not Prometheus' body: %v", m)
	}
	ok(t, g, "metrics_range", map[string]any{"query": q, "start": "2026-01-01T00:00:00Z", "end": "2026-01-01T01:00:00Z"})
	ok(t, g, "metrics_range", map[string]any{"query": "up", "start": "1", "end": "2", "step": "1m"})
	req := f.seen()
	if len(req) != 3 {
		t.Fatalf("requests %+v", req)
	}
	want := []seen{
		{"/api/v1/query", url.Values{"query": {q}, "time": {"1700000000"}}, "application/json"},
		{"/api/v1/query_range", url.Values{"query": {q}, "start": {"2026-01-01T00:00:00Z"}, "end": {"2026-01-01T01:00:00Z"}, "step": {"15s"}}, "application/json"},
		{"/api/v1/query_range", url.Values{"query": {"up"}, "start": {"1"}, "end": {"2"}, "step": {"1m"}}, "application/json"},
	}
	for i := range want {
		if g, w := mustJSON(req[i]), mustJSON(want[i]); g != w {
			t.Errorf("request %d\n got %s\nwant %s", i, g, w)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestMissingArguments(t *testing.T) {
	g := obsgateway.New(obsgateway.Config{PrometheusURL: "http://127.0.0.1:1"})
	fails(t, g, "metrics", nil, "Missing required argument: query")
	fails(t, g, "metrics_range", map[string]any{"query": "up"}, "start")
	if m := fails(t, g, "metrics_range", map[string]any{"query": "up", "start": "1"}, "Missing required argument: end"); m["field"] != "end" {
		t.Errorf("field %v", m["field"])
	}
	fails(t, g, "session_info", map[string]any{}, "sessionId")
}

func TestBadArguments(t *testing.T) {
	g := obsgateway.New(obsgateway.Config{PrometheusURL: "http://127.0.0.1:1", Store: memstore.New()})
	for _, c := range []struct {
		op    string
		args  any
		field string
		words []string
	}{
		{"sessions", map[string]any{"limit": "5"}, "limit", []string{"limit", "number", "string"}},
		{"sessions", map[string]any{"limit": 2.5}, "limit", []string{"limit", "whole"}},
		{"sessions", map[string]any{"status": "gone"}, "status", []string{"status", "active", "idle", "all"}},
		{"alerts", map[string]any{"state": "on"}, "state", []string{"state", "firing", "pending", "all"}},
		{"health", map[string]any{"services": "prometheus"}, "services", []string{"services", "array"}},
		{"health", map[string]any{"services": []string{"foo"}}, "services", []string{"foo", "thoughtbox", "grafana"}},
		{"health", map[string]any{"services": []string{}}, "services", []string{"services"}},
		{"metrics", map[string]any{"query": "up", "bogus": 1}, "bogus", []string{"bogus"}},
		{"session_info", map[string]any{"sessionId": `x"} or vector(1)`}, "sessionId", []string{"sessionId"}},
		{"dashboard_url", map[string]any{"dashboard": "../admin"}, "dashboard", []string{"dashboard"}},
	} {
		m := fails(t, g, c.op, c.args, c.words...)
		if m["field"] != c.field {
			t.Errorf("%s %v: field %v, want %s", c.op, c.args, m["field"], c.field)
		}
	}
	fails(t, g, "bogus", nil, "bogus")
	if m := fails(t, g, "bogus", nil); len(m["validOperations"].([]any)) != 7 {
		t.Errorf("valid operations %v", m["validOperations"])
	}
}

func TestPrometheusErrors(t *testing.T) {
	f := newFake(t)
	f.status["/api/v1/query"] = 500
	g := obsgateway.New(obsgateway.Config{PrometheusURL: f.srv.URL, GrafanaURL: f.srv.URL})
	fails(t, g, "metrics", map[string]any{"query": "err500"}, "Prometheus", "500", "Internal Server Error", "boom")

	// Nothing listens.
	down := closedPort(t)
	g = obsgateway.New(obsgateway.Config{PrometheusURL: down, GrafanaURL: down})
	for _, op := range []struct {
		name string
		args any
	}{{"metrics", map[string]any{"query": "up"}}, {"metrics_range", map[string]any{"query": "up", "start": "1", "end": "2"}}, {"alerts", nil}} {
		fails(t, g, op.name, op.args, "Prometheus", down, "cannot be reached")
	}
	// Prometheus accepts the connection but never answers: the time limit.
	hang := hangingServer(t)
	g = obsgateway.New(obsgateway.Config{PrometheusURL: hang, GrafanaURL: hang, PrometheusTimeout: 300 * time.Millisecond, GrafanaTimeout: 200 * time.Millisecond})
	start := time.Now()
	fails(t, g, "metrics", map[string]any{"query": "up"}, "Prometheus", "did not answer within 300ms")
	m := ok(t, g, "health", nil)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the calls took %s", d)
	}
	if m["status"] != "unhealthy" {
		t.Errorf("health against a hanging Prometheus: %v", m)
	}
}

// closedPort returns the URL of a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + l.Addr().String()
	l.Close()
	return u
}

// hangingServer accepts connections and never answers.
func hangingServer(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return "http://" + l.Addr().String()
}

func TestHealth(t *testing.T) {
	f := newFake(t)
	g := obsgateway.New(obsgateway.Config{PrometheusURL: f.srv.URL, GrafanaURL: f.srv.URL, Version: "9.9.9"})
	m := ok(t, g, "health", nil)
	want := `{"grafana":{"database":"ok","status":"healthy","version":"11.0.0"},"prometheus":{"status":"healthy","targets_total":2,"targets_up":1},"sidecar":{"active_connections":3,"status":"healthy","upstream_available":true},"thoughtbox":{"status":"healthy","version":"9.9.9"}}`
	if got := mustJSON(m["services"]); got != want {
		t.Errorf("services\n got %s\nwant %s", got, want)
	}
	if m["status"] != "healthy" {
		t.Errorf("overall %v", m["status"])
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", m["timestamp"].(string)); err != nil {
		t.Error(err)
	}
	// The services in the order asked.
	_, r := call(t, g, "health", map[string]any{"services": []string{"grafana", "prometheus"}})
	if i, j := strings.Index(r.FirstText(), `"grafana"`), strings.Index(r.FirstText(), `"prometheus"`); i < 0 || j < i {
		t.Errorf("order: %s", r.FirstText())
	}
	// Nothing reachable: each service says why, overall unhealthy.
	down := closedPort(t)
	g = obsgateway.New(obsgateway.Config{PrometheusURL: down, GrafanaURL: down})
	m = ok(t, g, "health", nil)
	if m["status"] != "unhealthy" {
		t.Errorf("overall %v", m["status"])
	}
	svc := m["services"].(map[string]any)
	for name, st := range map[string]string{"sidecar": "unknown", "prometheus": "unhealthy", "grafana": "unhealthy", "thoughtbox": "healthy"} {
		e := svc[name].(map[string]any)
		if e["status"] != st {
			t.Errorf("%s: %v", name, e)
		}
		if name != "thoughtbox" && !strings.Contains(e["error"].(string), "cannot be reached") {
			t.Errorf("%s: the error does not say why: %v", name, e)
		}
	}
	// Grafana up with a broken database and Prometheus erroring: unhealthy.
	f.status["/-/healthy"] = 503
	m = ok(t, obsgateway.New(obsgateway.Config{PrometheusURL: f.srv.URL, GrafanaURL: f.srv.URL}), "health", map[string]any{"services": []string{"prometheus"}})
	if e := m["services"].(map[string]any)["prometheus"].(map[string]any); e["status"] != "unhealthy" || !strings.Contains(e["error"].(string), "503") {
		t.Errorf("prometheus 503: %v", e)
	}
}

func TestAlerts(t *testing.T) {
	f := newFake(t)
	g := obsgateway.New(obsgateway.Config{PrometheusURL: f.srv.URL})
	m := ok(t, g, "alerts", nil)
	want := `{"alerts":[{"activeAt":"2026-01-01T00:00:00Z","description":"p95 high","name":"HighLatency","severity":"warning","state":"firing","summary":"slow","value":"1e+00"},{"activeAt":"2026-01-01T00:00:00Z","name":"unknown","severity":"info","state":"pending","value":"0"}],"firing":1,"pending":1}`
	if got := mustJSON(m); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	m = ok(t, g, "alerts", map[string]any{"state": "firing"})
	if got := mustJSON(m); !strings.Contains(got, `"firing":1,"pending":0`) || strings.Contains(got, `"unknown"`) {
		t.Errorf("firing only: %s", got)
	}
	f.status["/api/v1/alerts"] = 500
	fails(t, g, "alerts", nil, "Prometheus", "500")
}

func TestSessions(t *testing.T) {
	st := memstore.New()
	now := time.Now()
	g := obsgateway.New(obsgateway.Config{Store: st, Now: func() time.Time { return now }})
	c, err := st.Create(storage.CreateParams{Title: "one", Tags: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	rev := true
	one := 1
	for _, e := range []storage.Entry{
		{Thought: "a", ThoughtNumber: 1, TotalThoughts: 2, NextThoughtNeeded: true},
		{Thought: "b", ThoughtNumber: 2, TotalThoughts: 2, NextThoughtNeeded: true, IsRevision: &rev, RevisesThought: &one},
	} {
		if _, err := c.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	st.Release(c.ID())
	c2, _ := st.Create(storage.CreateParams{Title: "two"})
	st.Release(c2.ID())

	m := ok(t, g, "sessions", nil)
	if m["total"] != 2.0 || len(m["sessions"].([]any)) != 2 {
		t.Fatalf("%v", m)
	}
	m = ok(t, g, "sessions", map[string]any{"limit": 1})
	if m["total"] != 2.0 || len(m["sessions"].([]any)) != 1 {
		t.Errorf("limit 1: %v", m)
	}
	if m := ok(t, g, "sessions", map[string]any{"status": "idle"}); m["total"] != 0.0 {
		t.Errorf("idle: %v", m)
	}
	info := ok(t, g, "session_info", map[string]any{"sessionId": c.ID()})
	if info["title"] != "one" || info["thoughtCount"] != 2.0 || info["status"] != "active" ||
		mustJSON(info["metrics"]) != `{"revisionsCount":1}` || mustJSON(info["tags"]) != `["x"]` {
		t.Errorf("session_info: %v", info)
	}
	fails(t, g, "session_info", map[string]any{"sessionId": "nope"}, "Session not found: nope")
	// An hour later both are idle.
	later := obsgateway.New(obsgateway.Config{Store: st, Now: func() time.Time { return now.Add(time.Hour) }})
	if m := ok(t, later, "sessions", map[string]any{"status": "idle"}); m["total"] != 2.0 {
		t.Errorf("an hour later: %v", m)
	}
}

func TestDashboardURL(t *testing.T) {
	g := obsgateway.New(obsgateway.Config{GrafanaURL: "http://grafana.example:3001/"})
	if m := ok(t, g, "dashboard_url", nil); m["url"] != "http://grafana.example:3001/d/thoughtbox-mcp/thoughtbox-mcp" || m["dashboard"] != "thoughtbox-mcp" {
		t.Errorf("%v", m)
	}
	if m := ok(t, g, "dashboard_url", map[string]any{"dashboard": "my-dash"}); m["url"] != "http://grafana.example:3001/d/my-dash/my-dash" {
		t.Errorf("%v", m)
	}
}
