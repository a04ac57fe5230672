package mcpserver_test

import (
	"net/http"
	"strings"
	"testing"
)

// modernRequest is the body of a 2026-era request of method with the
// params given.
func modernRequest(id, method, params string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`
}

// modernHeaders are the headers of a 2026-era request of method.
func modernHeaders(method string) map[string]string {
	return map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method}
}

// server/discover and tools/list asked again are answered with the result
// the general path gave the first time, byte for byte, with the new
// request's id; each kind of client (_meta but its trace context) gets its
// own.
func TestStaticAnswersAreTheGeneralPathsAnswers(t *testing.T) {
	srv, url := newHTTPServer(t, testConfig(t, "memory"))
	h := rawHTTP{t, url}
	metas := []struct{ kind, meta string }{
		{"plain", modernMeta("")},
		{"plain", modernMeta(`,"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"`)},
		{"another client", strings.Replace(modernMeta(""), `"name":"t"`, `"name":"another client"`, 1)},
		{"roots", `{"io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`},
	}
	for _, method := range []string{"server/discover", "tools/list"} {
		general := map[string]string{} // the general path's answer to id 1, by kind
		for _, m := range metas {
			params := `{"_meta":` + m.meta + `}`
			if _, seen := general[m.kind]; !seen {
				before := srv.StaticAnswers()
				first, answer := h.do(http.MethodPost, "", modernRequest(`1`, method, params), modernHeaders(method))
				if srv.StaticAnswers() != before {
					t.Fatalf("%s %s: the first request was answered with a kept result", method, m.meta)
				}
				if first.StatusCode != http.StatusOK || first.Header.Get("Content-Type") != "application/json" || !strings.Contains(answer, `"result":`) {
					t.Fatalf("%s %s: %d %q %.300s", method, m.meta, first.StatusCode, first.Header.Get("Content-Type"), answer)
				}
				general[m.kind] = answer
			}
			for _, id := range []string{`2`, `"<a&b>"`, `-7`, `"tb-9"`} {
				before := srv.StaticAnswers()
				resp, kept := h.do(http.MethodPost, "", modernRequest(id, method, params), modernHeaders(method))
				if srv.StaticAnswers() != before+1 {
					t.Fatalf("%s %s id %s: not answered with the kept result", method, m.meta, id)
				}
				wantID := strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(id)
				if want := strings.Replace(general[m.kind], `"id":1,`, `"id":`+wantID+`,`, 1); kept != want {
					t.Errorf("%s %s id %s:\nkept    %.400q\ngeneral %.400q", method, m.meta, id, kept, want)
				}
				if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
					t.Errorf("%s id %s: kept %d %q", method, id, resp.StatusCode, resp.Header.Get("Content-Type"))
				}
			}
		}
	}
}

// Once tools/list's answer is kept, requests it does not fit go the general
// way: a cursor, anything beside _meta in params or beside the four members
// of a request, a member given twice, a _meta member that may change the
// answer, another jsonrpc, a header that disagrees, a key too large to keep.
func TestStaticAnswersLeaveTheRestToTheGeneralPath(t *testing.T) {
	srv, url := newHTTPServer(t, testConfig(t, "memory"))
	h := rawHTTP{t, url}
	plain := `{"_meta":` + modernMeta("") + `}`
	h.do(http.MethodPost, "", modernRequest(`1`, "tools/list", plain), modernHeaders("tools/list"))
	if _, body := h.do(http.MethodPost, "", modernRequest(`2`, "tools/list", plain), modernHeaders("tools/list")); srv.StaticAnswers() != 1 || !strings.Contains(body, `"tools":[`) {
		t.Fatalf("the plain request again was not answered with the kept result: %.300s", body)
	}
	for _, c := range []struct {
		name, body string
		header     map[string]string
		status     int
	}{
		{"a cursor", modernRequest(`3`, "tools/list", `{"cursor":"x","_meta":`+modernMeta("")+`}`), modernHeaders("tools/list"), http.StatusBadRequest},
		{"a cursor after _meta", modernRequest(`3`, "tools/list", `{"_meta":`+modernMeta("")+`,"cursor":"x"}`), modernHeaders("tools/list"), http.StatusBadRequest},
		{"a progress token", modernRequest(`4`, "tools/list", `{"_meta":`+modernMeta(`,"progressToken":"p"`)+`}`), modernHeaders("tools/list"), http.StatusOK},
		{"a log level", modernRequest(`5`, "tools/list", `{"_meta":`+modernMeta(`,"io.modelcontextprotocol/logLevel":"debug"`)+`}`), modernHeaders("tools/list"), http.StatusOK},
		{"a member twice", modernRequest(`6`, "tools/list", `{"_meta":`+modernMeta(`,"io.modelcontextprotocol/protocolVersion":"2026-07-28"`)+`}`), modernHeaders("tools/list"), http.StatusOK},
		{"another jsonrpc", strings.Replace(modernRequest(`7`, "tools/list", plain), `"2.0"`, `"1.0"`, 1), modernHeaders("tools/list"), http.StatusBadRequest},
		{"a member beside the request's", strings.Replace(modernRequest(`8`, "tools/list", plain), `{"jsonrpc"`, `{"x":1,"jsonrpc"`, 1), modernHeaders("tools/list"), http.StatusOK},
		{"a header that disagrees", modernRequest(`9`, "tools/list", plain), modernHeaders("prompts/list"), http.StatusBadRequest},
	} {
		resp, body := h.do(http.MethodPost, "", c.body, c.header)
		if srv.StaticAnswers() != 1 {
			t.Fatalf("%s: answered with the kept result: %.300s", c.name, body)
		}
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d: %.300s", c.name, resp.StatusCode, c.status, body)
		}
	}
	// A client that declares more than a key holds is answered by mcp-go
	// every time: nothing of it is kept.
	large := modernRequest(`10`, "tools/list", `{"_meta":`+strings.Replace(modernMeta(""), `"name":"t"`, `"name":"`+strings.Repeat("n", 5000)+`"`, 1)+`}`)
	for range 2 {
		if resp, body := h.do(http.MethodPost, "", large, modernHeaders("tools/list")); resp.StatusCode != http.StatusOK || srv.StaticAnswers() != 1 {
			t.Fatalf("a large client name: %d, kept answers given %d: %.300s", resp.StatusCode, srv.StaticAnswers(), body)
		}
	}
}

// In 2025-era sessions, tools/list asked again, in the same session or
// another, is answered with the result the general path gave the first
// time; tools/list with a cursor or other params, and other methods, go the
// general way.
func TestStaticAnswersInSessions(t *testing.T) {
	srv, url := newHTTPServer(t, testConfig(t, "memory"))
	h := rawHTTP{t, url}
	session := func() string {
		resp, body := h.do(http.MethodPost, "", initBody, nil)
		sid := resp.Header.Get("Mcp-Session-Id")
		if sid == "" {
			t.Fatalf("initialize: %d %s", resp.StatusCode, body)
		}
		h.do(http.MethodPost, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
		return sid
	}
	list := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":{}}` }
	first, second := session(), session()
	resp, general := h.do(http.MethodPost, first, list(`1`), nil)
	if srv.StaticAnswers() != 0 || resp.StatusCode != http.StatusOK || !strings.Contains(general, `"tools":[`) {
		t.Fatalf("the first tools/list: %d kept %d: %.300s", resp.StatusCode, srv.StaticAnswers(), general)
	}
	for i, c := range []struct{ sid, id string }{{first, `2`}, {second, `"<x>"`}, {second, `3`}} {
		resp, kept := h.do(http.MethodPost, c.sid, list(c.id), nil)
		if srv.StaticAnswers() != int64(i+1) {
			t.Fatalf("tools/list id %s: not answered with the kept result", c.id)
		}
		wantID := strings.NewReplacer("<", `\u003c`, ">", `\u003e`).Replace(c.id)
		if want := strings.Replace(general, `"id":1,`, `"id":`+wantID+`,`, 1); kept != want || resp.StatusCode != http.StatusOK ||
			resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("tools/list id %s: %d %q\nkept    %.400q\ngeneral %.400q", c.id, resp.StatusCode, resp.Header.Get("Content-Type"), kept, want)
		}
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"x"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":7,"method":"prompts/list","params":{}}`,
		`{"jsonrpc":"1.0","id":8,"method":"tools/list","params":{}}`,
	} {
		h.do(http.MethodPost, second, body, nil)
		if srv.StaticAnswers() != 3 {
			t.Fatalf("%s: answered with the kept result", body)
		}
	}
}
