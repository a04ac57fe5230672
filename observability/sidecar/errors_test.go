package sidecar

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// fakeUpstream serves h on the MCP path.
func fakeUpstream(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

func answerJSON(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func wantCount(t *testing.T, c Counts, method, status string, n int64) {
	t.Helper()
	if got := c.Requests[MethodStatus{method, status}]; got != n {
		t.Errorf("count %s/%s = %d, want %d (all: %v)", method, status, got, n, c.Requests)
	}
}

// TestUpstreamErrorsPassThrough checks that upstream HTTP errors and
// JSON-RPC errors reach the client unchanged and are counted with their
// real codes.
func TestUpstreamErrorsPassThrough(t *testing.T) {
	cases := []struct {
		name       string
		upstream   http.HandlerFunc
		wantStatus int
		wantBody   string
		status     string
		code       string
	}{
		{"http 500 text", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, "boom")
		}, 500, "boom", outcome.Error, "500"},
		{"server-range JSON-RPC error", answerJSON(200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}`),
			200, `"code":-32000`, outcome.Error, "-32000"},
		{"application error code", answerJSON(200, `{"jsonrpc":"2.0","id":1,"error":{"code":4242,"message":"x"}}`),
			200, `"code":4242`, outcome.Error, "_OTHER"},
		{"JSON-RPC error with HTTP 400", answerJSON(400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"bad"}}`),
			400, `"code":-32600`, outcome.Error, "-32600"},
		{"id-less error", answerJSON(400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`),
			400, `-32700`, outcome.Error, "-32700"},
		{"202 for a request", answerJSON(202, ""), 202, "", outcome.Error, "no_response"},
		{"tool error", answerJSON(200, `{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`),
			200, `"isError":true`, outcome.ToolError, "tool_error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up := fakeUpstream(t, c.upstream)
			p, px := startProxy(t, up.URL, nil)
			resp, body := rawPost(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, nil)
			if resp.StatusCode != c.wantStatus || !strings.Contains(body, c.wantBody) {
				t.Fatalf("client got %d %q, want %d containing %q", resp.StatusCode, body, c.wantStatus, c.wantBody)
			}
			wantCount(t, p.Counts(), "tools/call", c.status, 1)
			wantOps(t, p.tel, "tools/call", c.code, 1)
			wantSeries(t, scrape(t, px.URL), `mcp_sidecar_upstream_responses_total{code="`+httpCodeStr(c.wantStatus)+`",server_name="test"} 1`)
		})
	}
}

// TestBatch checks that a batch is forwarded as is and each of its requests
// is matched with its answer, whatever the order.
func TestBatch(t *testing.T) {
	var got string
	up := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = string(b)
		answerJSON(200, `[{"jsonrpc":"2.0","id":"b","error":{"code":-32601,"message":"no"}},{"jsonrpc":"2.0","id":7,"result":{}}]`)(w, r)
	})
	p, px := startProxy(t, up.URL, nil)
	batch := `[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"resources/list"}]`
	resp, body := rawPost(t, px.URL+"/mcp", batch, nil)
	if got != batch {
		t.Errorf("upstream got %q, want the batch unchanged", got)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(body, `[{"jsonrpc":"2.0","id":"b"`) {
		t.Errorf("client got %d %s", resp.StatusCode, body)
	}
	c := p.Counts()
	wantCount(t, c, "ping", outcome.OK, 1)
	wantCount(t, c, "resources/list", outcome.Error, 1)
	if n := c.Notifications[Notification{"notifications/initialized", DirectionIn}]; n != 1 {
		t.Errorf("notifications counted %d, want 1", n)
	}
}

// TestUnreachableUpstream checks the proxy's own answer when nothing
// listens upstream: 502 with a JSON-RPC error for the request's id.
func TestUnreachableUpstream(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	url := up.URL
	up.Close()
	p, px := startProxy(t, url, nil)
	p.tel.state.available.Store(1)
	resp, body := rawPost(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":"q1","method":"ping"}`, nil)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, `"id":"q1"`) || !strings.Contains(body, `"code":-32603`) ||
		!strings.Contains(body, `"message":"mcp-sidecar: upstream unreachable (connection_refused)"`) {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
	if h := resp.Header.Get(outcome.ProxyAnswerHeader); h != "upstream unreachable" {
		t.Errorf("%s: %q, want the reason of the proxy's own answer", outcome.ProxyAnswerHeader, h)
	}
	wantCount(t, p.Counts(), "ping", outcome.Error, 1)
	m := scrape(t, px.URL)
	wantOps(t, p.tel, "ping", "upstream_unreachable", 1)
	wantSeries(t, m, `mcp_sidecar_upstream_available{server_name="test"} 0`)
}

// TestUpstreamTimeout checks the 504 and the timeout code.
func TestUpstreamTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	up := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	p, px := startProxy(t, up.URL, func(c *Config) { c.UpstreamTimeout = 50 * time.Millisecond })
	resp, body := rawPost(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, nil)
	if resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(body, `"id":3`) || resp.Header.Get(outcome.ProxyAnswerHeader) != "upstream timeout" {
		t.Fatalf("got %d %s (%s: %q)", resp.StatusCode, body, outcome.ProxyAnswerHeader, resp.Header.Get(outcome.ProxyAnswerHeader))
	}
	wantCount(t, p.Counts(), "tools/list", outcome.Error, 1)
	wantOps(t, p.tel, "tools/list", "timeout", 1)
}

// TestSSEStreamsAsItArrives holds the upstream between two events: the
// client must get the first before the upstream sends the second, and the
// request must count only once its answer has passed.
func TestSSEStreamsAsItArrives(t *testing.T) {
	release := make(chan struct{})
	up := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n")
		w.(http.Flusher).Flush()
		<-release
		_, _ = io.WriteString(w, "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":5,\"result\":{}}\r\n\r\n")
	})
	p, px := startProxy(t, up.URL, nil)
	req, _ := http.NewRequest(http.MethodPost, px.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow"}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	first := make(chan string, 1)
	go func() {
		var s string
		for {
			line, err := rd.ReadString('\n')
			s += line
			if err != nil || line == "\n" {
				first <- s
				return
			}
		}
	}()
	select {
	case ev := <-first:
		if !strings.Contains(ev, `"progress":1`) {
			t.Fatalf("first event %q", ev)
		}
	case <-time.After(5 * time.Second):
		close(release)
		t.Fatal("first event not relayed before the upstream finished")
	}
	if n := p.Counts().Method("tools/call"); n != 0 {
		t.Errorf("counted %d before the answer", n)
	}
	if p.tel.state.ssePost.Load() != 1 || p.tel.state.inflight.Load() != 1 {
		t.Errorf("mid-stream: sse post %d, in flight %d; want 1, 1", p.tel.state.ssePost.Load(), p.tel.state.inflight.Load())
	}
	close(release)
	rest, _ := io.ReadAll(rd)
	if !strings.HasSuffix(string(rest), "data: \"id\":5,\"result\":{}}\r\n\r\n") {
		t.Errorf("rest of stream altered: %q", rest)
	}
	wantCount(t, p.Counts(), "tools/call", outcome.OK, 1)
	if n := p.Counts().Notifications[Notification{"notifications/progress", DirectionOut}]; n != 1 {
		t.Errorf("progress notifications %d, want 1", n)
	}
	waitFor(t, "stream gauges back to 0", func() bool { return p.tel.state.ssePost.Load() == 0 && p.tel.state.inflight.Load() == 0 })
}

// TestClientGoneMidStream counts a request whose client left as cancelled.
func TestClientGoneMidStream(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	up := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	p, px := startProxy(t, up.URL, nil)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, px.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	waitFor(t, "cancelled request counted", func() bool {
		return p.Counts().Requests[MethodStatus{"tools/call", outcome.Cancelled}] == 1
	})
}

// TestHeadersBothWays checks end-to-end headers in both directions and the
// removal of hop-by-hop ones.
func TestHeadersBothWays(t *testing.T) {
	var seen http.Header
	up := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		seen = r.Header.Clone()
		w.Header().Set("Mcp-Session-Id", "s-1")
		w.Header().Set("X-Upstream", "yes")
		answerJSON(200, `{"jsonrpc":"2.0","id":1,"result":{}}`)(w, r)
	})
	_, px := startProxy(t, up.URL, nil)
	resp, _ := rawPost(t, px.URL+"/mcp?x=1", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, map[string]string{
		"Mcp-Session-Id": "abc", "Mcp-Protocol-Version": "2025-11-25", "Authorization": "Bearer t",
		"Last-Event-Id": "9", "X-Custom": "c", "Connection": "keep-alive, X-Hop", "X-Hop": "h", "Accept-Encoding": "gzip",
	})
	for k, v := range map[string]string{"Mcp-Session-Id": "abc", "Mcp-Protocol-Version": "2025-11-25",
		"Authorization": "Bearer t", "Last-Event-Id": "9", "X-Custom": "c"} {
		if seen.Get(k) != v {
			t.Errorf("upstream saw %s=%q, want %q", k, seen.Get(k), v)
		}
	}
	for _, k := range []string{"X-Hop", "Accept-Encoding"} {
		if seen.Get(k) != "" {
			t.Errorf("upstream saw %s=%q, want it dropped", k, seen.Get(k))
		}
	}
	if resp.Header.Get("Mcp-Session-Id") != "s-1" || resp.Header.Get("X-Upstream") != "yes" {
		t.Errorf("client got headers %v", resp.Header)
	}
}

// TestBodyLimit refuses oversized requests itself.
func TestBodyLimit(t *testing.T) {
	up := fakeUpstream(t, answerJSON(200, `{}`))
	_, px := startProxy(t, up.URL, func(c *Config) { c.MaxBodyBytes = 64 })
	resp, body := rawPost(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`+strings.Repeat("x", 100)+`"}}`, nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "-32600") || resp.Header.Get(outcome.ProxyAnswerHeader) != "body_too_large" {
		t.Errorf("got %d %s (%s: %q)", resp.StatusCode, body, outcome.ProxyAnswerHeader, resp.Header.Get(outcome.ProxyAnswerHeader))
	}
	wantSeries(t, scrape(t, px.URL), `mcp_sidecar_rejected_total{reason="body_too_large",server_name="test"} 1`)
}

// TestDNSRebindingProtection rejects foreign Host headers on loopback.
func TestDNSRebindingProtection(t *testing.T) {
	up := fakeUpstream(t, answerJSON(200, `{"jsonrpc":"2.0","id":1,"result":{}}`))
	_, px := startProxy(t, up.URL, func(c *Config) { c.AllowedHosts = []string{"mcp.internal"} })
	for host, want := range map[string]int{"evil.example": 403, "mcp.internal:4000": 200, "localhost:4000": 200} {
		req, _ := http.NewRequest(http.MethodPost, px.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
}
