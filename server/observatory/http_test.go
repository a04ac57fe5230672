package observatory_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/observatory"
)

type answer struct {
	status int
	header http.Header
	body   string
}

func request(t *testing.T, method, url string, header map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, res.Header, string(b)}
}

func TestHTTPAPI(t *testing.T) {
	o, base := start(t, nil)
	o.Emit(sessionStarted("s1", "one"))
	o.Emit(thought{n: 1, total: 1, text: "only", next: false, sessionThoughtsAfter: 1}.event("s1"))
	o.Emit(sessionStarted("s2", "two", "x"))
	o.Emit(thought{n: 1, total: 2, text: "a", next: true}.event("s2"))
	o.Emit(thought{n: 2, total: 2, text: "b", next: true, branch: "alt", branchFrom: 1}.event("s2"))
	waitFor(t, func() bool { return o.Stats().Events == 5 })

	cases := []struct {
		method, path string
		status       int
		body         string // exact body, or a part of it after "~"
	}{
		{"GET", "/api/health", 200, `{"status":"ok","connections":0,"activeSessions":1}`},
		{"GET", "/api/sessions", 200, `~"sessions":[{"id":"s2"`},
		{"GET", "/api/sessions?status=completed", 200, `~{"sessions":[{"id":"s1","title":"one","tags":[],"createdAt":"2026-11-22T07:57:09.713Z","status":"completed","completedAt":`},
		{"GET", "/api/sessions?status=all&limit=1&offset=1", 200, `~{"sessions":[{"id":"s1"`},
		{"GET", "/api/sessions?limit=0", 200, `{"sessions":[]}`},
		{"GET", "/api/sessions?limit=x", 400, `~"error":"limit must be`},
		{"GET", "/api/sessions?offset=-2", 400, `~"error":"offset must be`},
		{"GET", "/api/sessions?status=bogus", 400, `~"error":"status must be`},
		{"GET", "/api/sessions/s2", 200, `{"session":{"id":"s2","title":"two","tags":["x"],"createdAt":"2026-11-22T07:57:09.713Z","status":"active"},"thoughts":[{"id":"s2-1","thoughtNumber":1,"totalThoughts":2,"thought":"a","nextThoughtNeeded":true,"timestamp":"2026-11-22T07:57:10.000Z"}],"branches":{"alt":{"id":"alt","fromThoughtNumber":1,"thoughts":[{"id":"s2-alt-2","thoughtNumber":2,"totalThoughts":2,"thought":"b","nextThoughtNeeded":true,"timestamp":"2026-11-22T07:57:10.000Z","branchId":"alt","branchFromThought":1}]}}}`},
		{"GET", "/api/sessions/nosuch", 404, `{"error":"Session not found"}`},
		{"GET", "/api/sessions/", 404, `{"error":"Session not found"}`},
		{"POST", "/api/health", 404, `{"error":"Not found"}`},
		{"POST", "/api/test/mock-collab-session", 404, `{"error":"Not found"}`},
		{"GET", "/api/elsewhere", 404, `{"error":"Not found"}`},
		{"GET", "/favicon.ico", 404, `{"error":"Not found"}`},
		{"OPTIONS", "/api/anything", 204, ``},
		{"GET", "/ws", 426, `~"error":`},
	}
	for _, c := range cases {
		a := request(t, c.method, base+c.path, nil)
		ok := a.status == c.status
		if want, part := strings.CutPrefix(c.body, "~"); part {
			ok = ok && strings.Contains(a.body, want)
		} else {
			ok = ok && a.body == c.body
		}
		if !ok {
			t.Errorf("%s %s: %d %s\nwant %d %s", c.method, c.path, a.status, a.body, c.status, c.body)
		}
		if c.status != 204 && a.header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: Content-Type %q", c.method, c.path, a.header.Get("Content-Type"))
		}
		if a.header.Get("Access-Control-Allow-Origin") != "*" || a.header.Get("Access-Control-Allow-Methods") != "GET, OPTIONS" ||
			a.header.Get("Access-Control-Allow-Headers") != "Content-Type" {
			t.Errorf("%s %s: CORS headers %v", c.method, c.path, a.header)
		}
	}
	var list struct{ Sessions []observatory.Session }
	if err := json.Unmarshal([]byte(request(t, "GET", base+"/api/sessions", nil).body), &list); err != nil || len(list.Sessions) != 2 {
		t.Errorf("sessions %+v (%v), want 2, newest first", list, err)
	}
}

func TestCORSChoosesTheOrigin(t *testing.T) {
	_, base := start(t, func(c *observatory.Config) {
		c.CORS = observatory.ParseCORS("http://a.example, http://b.example")
	})
	for origin, want := range map[string]string{"http://b.example": "http://b.example", "http://evil.example": "http://a.example", "": "http://a.example"} {
		h := map[string]string{}
		if origin != "" {
			h["Origin"] = origin
		}
		if got := request(t, "GET", base+"/api/health", h).header.Get("Access-Control-Allow-Origin"); got != want {
			t.Errorf("Origin %q: Access-Control-Allow-Origin %q, want %q", origin, got, want)
		}
	}
}

func TestPageAndAPIOff(t *testing.T) {
	_, base := start(t, func(c *observatory.Config) { c.HTTPAPI = false; c.Path = "/live" })
	for _, p := range []string{"/", "/observatory"} {
		a := request(t, "GET", base+p, nil)
		if a.status != 200 || a.header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(a.body, `"/live"`) {
			t.Errorf("GET %s: %d %s, want the page connecting to /live", p, a.status, a.header.Get("Content-Type"))
		}
		if csp := a.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("GET %s: Content-Security-Policy %q", p, csp)
		}
	}
	for _, p := range []string{"/api/health", "/api/sessions", "/api/sessions/x", "/ws"} {
		if a := request(t, "GET", base+p, nil); a.status != 404 || a.body != `{"error":"Not found"}` {
			t.Errorf("GET %s with the API off: %d %s", p, a.status, a.body)
		}
	}
}

func TestHostHeaderChecked(t *testing.T) {
	_, base := start(t, func(c *observatory.Config) {
		c.HostAllowed = func(h string) bool { return strings.HasPrefix(h, "127.0.0.1:") }
	})
	if a := request(t, "GET", base+"/api/health", nil); a.status != 200 {
		t.Errorf("own host: %d", a.status)
	}
	req, _ := http.NewRequest("GET", base+"/api/health", nil)
	req.Host = "rebound.example"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 403 {
		t.Errorf("foreign Host header: %d, want 403", res.StatusCode)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		change func(*observatory.Config)
		want   string
	}{
		{func(c *observatory.Config) { c.Port = 70000 }, "PORT"},
		{func(c *observatory.Config) { c.MaxConn = 0 }, "MAX_CONN"},
		{func(c *observatory.Config) { c.Path = "ws" }, "PATH"},
		{func(c *observatory.Config) { c.Path = "/api/ws" }, "PATH"},
		{func(c *observatory.Config) { c.Path = "/observatory" }, "PATH"},
		{func(c *observatory.Config) { c.CORS = nil }, "CORS"},
		{func(c *observatory.Config) { c.WriteTimeout = -time.Second }, "WRITE_TIMEOUT"},
	} {
		cfg := observatory.Defaults()
		c.change(&cfg)
		if _, err := observatory.New(cfg); err == nil || !strings.Contains(err.Error(), "THOUGHTBOX_OBSERVATORY_"+c.want) {
			t.Errorf("%+v: error %v, want one naming %s", cfg, err, c.want)
		}
	}
}
