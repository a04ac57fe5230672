package mcpserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

type rawHTTP struct {
	t   *testing.T
	url string
}

func (h rawHTTP) do(method, sid, body string, header map[string]string) (*http.Response, string) {
	h.t.Helper()
	req, err := http.NewRequest(method, h.url, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func TestHTTPTransport(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	h := rawHTTP{t, url}
	base := strings.TrimSuffix(url, "/mcp")

	resp, body := h.do(http.MethodPost, "", initBody, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %q %s", resp.StatusCode, sid, body)
	}
	if resp, _ := h.do(http.MethodPost, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); resp.StatusCode != 202 {
		t.Fatalf("initialized notification: %d", resp.StatusCode)
	}

	for _, c := range []struct {
		name    string
		method  string
		sid     string
		body    string
		header  map[string]string
		status  int
		message string
	}{
		{"unknown session", http.MethodPost, "8f7b6a52-0000-4000-8000-000000000000", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil, 404, "Session not found"},
		{"no session header", http.MethodPost, "", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil, 400, "Mcp-Session-Id header is required"},
		{"GET without session", http.MethodGet, "", "", nil, 400, "Mcp-Session-Id header is required"},
		{"foreign Host", http.MethodPost, "", initBody, map[string]string{"Host": "evil.example:1731"}, 403, "Invalid Host header"},
		{"foreign Origin", http.MethodPost, "", initBody, map[string]string{"Origin": "http://evil.example"}, 403, "Invalid Origin header"},
		{"body over 4 MiB", http.MethodPost, sid, `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"` + strings.Repeat("x", 4<<20) + `"}}`, nil, 413, "Request body too large"},
	} {
		resp, body := h.do(c.method, c.sid, c.body, c.header)
		if resp.StatusCode != c.status || !strings.Contains(body, c.message) {
			t.Errorf("%s: %d %s, want %d with %q", c.name, resp.StatusCode, body, c.status, c.message)
			continue
		}
		var env struct {
			JSONRPC string `json:"jsonrpc"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(body), &env); err != nil || env.JSONRPC != "2.0" || env.Error.Code == 0 {
			t.Errorf("%s: body is not a JSON-RPC error: %s", c.name, body)
		}
	}

	// A thought of almost 4 MiB is accepted.
	h.do(http.MethodPost, sid, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"start_new","args":{"newWork":{"project":"p"}}}}}`, nil)
	h.do(http.MethodPost, sid, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"cipher"}}}`, nil)
	big := strings.Repeat("y", 4<<20-400)
	resp, body = h.do(http.MethodPost, sid, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"thought","args":{"thought":"`+big+`","nextThoughtNeeded":true}}}}`, nil)
	if resp.StatusCode != 200 || !strings.Contains(body, `\"thoughtNumber\": 1`) {
		t.Errorf("large thought: %d %.300s", resp.StatusCode, body)
	}

	for path, want := range map[string]string{
		"/health": `{"server":"thoughtbox","status":"ok","transport":"streamable-http","version":"0.1.0"}`,
		"/info":   `{"server":{"name":"thoughtbox-server","version":"0.1.0"},"status":"ok"}`,
	} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || compact(t, string(b)) != want {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, b)
		}
	}
	if resp, err := http.Get(base + "/nope"); err != nil || resp.StatusCode != 404 {
		t.Errorf("unknown path: %v %v", resp, err)
	}

	// DELETE ends the session; the id is unknown afterwards.
	if resp, body := h.do(http.MethodDelete, sid, "", nil); resp.StatusCode != 200 {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	if resp, _ := h.do(http.MethodPost, sid, `{"jsonrpc":"2.0","id":7,"method":"ping"}`, nil); resp.StatusCode != 404 {
		t.Errorf("after DELETE: %d, want 404", resp.StatusCode)
	}
}
