package sidecar

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// wireRecord is one HTTP exchange as the client saw it.
type wireRecord struct {
	Method, Request      string
	Status               int
	ContentType, Session string
	Body                 string
}

// wireRecorder records the client's HTTP exchanges, with session ids
// replaced by their order of appearance so that two runs compare.
type wireRecorder struct {
	mu       sync.Mutex
	records  []wireRecord
	sessions map[string]string
}

func (w *wireRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	w.mu.Lock()
	defer w.mu.Unlock()
	w.records = append(w.records, wireRecord{
		Method:      req.Method,
		Request:     w.normal(string(reqBody)) + " session=" + w.normal(req.Header.Get("Mcp-Session-Id")),
		Status:      resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		Session:     w.normal(resp.Header.Get("Mcp-Session-Id")),
		Body:        w.normal(string(body)),
	})
	return resp, nil
}

// Generated values that differ between two runs of the same scenario:
// session and reasoning-session ids (numbered by first appearance, so that
// their reuse still compares) and timestamps.
var (
	idPattern   = regexp.MustCompile(`mcp-session-[0-9a-f-]+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timePattern = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`)
)

func (w *wireRecorder) normal(s string) string {
	s = timePattern.ReplaceAllString(s, "TIME")
	return idPattern.ReplaceAllStringFunc(s, func(id string) string {
		if w.sessions == nil {
			w.sessions = map[string]string{}
		}
		if _, ok := w.sessions[id]; !ok {
			w.sessions[id] = fmt.Sprintf("ID-%d", len(w.sessions)+1)
		}
		return w.sessions[id]
	})
}

// scenario drives an mcp-go client through everything the test server
// offers and returns the wire transcript and what the client got back.
func scenario(t *testing.T, base string) ([]wireRecord, []string) {
	t.Helper()
	rec := &wireRecorder{}
	c := newClient(t, base, transport.WithHTTPBasicClient(&http.Client{Transport: rec}))
	var progress atomic.Int64
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			progress.Add(1)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var got []string
	note := func(v any, err error) {
		if err != nil {
			got = append(got, "error: "+err.Error())
			return
		}
		b, _ := json.Marshal(v)
		got = append(got, string(b))
	}
	note(c.ListTools(ctx, mcp.ListToolsRequest{}))
	note(c.ListResources(ctx, mcp.ListResourcesRequest{}))
	note(c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{}))
	note(c.ListPrompts(ctx, mcp.ListPromptsRequest{}))
	gp := mcp.GetPromptRequest{}
	gp.Params.Name, gp.Params.Arguments = sidecartest.PromptName, map[string]string{"name": "Ada"}
	note(c.GetPrompt(ctx, gp))
	for _, uri := range []string{sidecartest.ResourceURI, "test://items/7", "test://missing"} {
		rr := mcp.ReadResourceRequest{}
		rr.Params.URI = uri
		note(c.ReadResource(ctx, rr))
	}
	note(nil, c.Ping(ctx))
	call := func(name string, args map[string]any, token any) {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		if token != nil {
			req.Params.Meta = &mcp.Meta{ProgressToken: token}
		}
		note(c.CallTool(ctx, req))
	}
	call(sidecartest.GatewayTool, map[string]any{"operation": "thought", "args": map[string]any{"thought": "too early"}}, nil)
	call(sidecartest.GatewayTool, map[string]any{"operation": "start_new", "args": map[string]any{"newWork": map[string]any{"project": "p"}}}, nil)
	call(sidecartest.GatewayTool, map[string]any{"operation": "cipher"}, nil)
	call(sidecartest.GatewayTool, map[string]any{"operation": "thought", "args": map[string]any{"thought": "one", "nextThoughtNeeded": true}}, nil)
	call(sidecartest.GatewayTool, map[string]any{"operation": "thought", "args": map[string]any{"thought": "two", "nextThoughtNeeded": false}}, nil)
	call(sidecartest.GatewayTool, map[string]any{"operation": "get_state"}, nil)
	call(sidecartest.ProgressTool, map[string]any{"steps": 4}, "tok-1")
	call(sidecartest.ProgressTool, map[string]any{"steps": 2}, nil)
	call("no_such_tool", map[string]any{}, nil)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	got = append(got, fmt.Sprintf("progress notifications: %d", progress.Load()))
	return rec.records, got
}

// TestTransparentSSEAndResources runs a client scenario that exercises
// progress notifications (SSE answers), resources and prompts against the
// test server directly and through the proxy: every HTTP exchange
// (request, status, content type, session header, body, SSE framing
// included) and every result must be identical.
func TestTransparentSSEAndResources(t *testing.T) {
	direct := startUpstream(t)
	directWire, directGot := scenario(t, direct.URL)

	up := startUpstream(t)
	p, px := startProxy(t, up.URL, nil)
	proxyWire, proxyGot := scenario(t, px.URL)

	sameRuns(t, 20, directWire, proxyWire, directGot, proxyGot)
	sse := 0
	for _, x := range directWire {
		if strings.HasPrefix(x.ContentType, "text/event-stream") {
			sse++
		}
	}
	if sse < 2 {
		t.Errorf("scenario produced %d SSE answers; want the progress calls to stream", sse)
	}
	if !strings.Contains(directGot[len(directGot)-1], "progress notifications: 4") {
		t.Errorf("client saw %q, want 4 progress notifications", directGot[len(directGot)-1])
	}
	if !strings.Contains(strings.Join(directGot, "\n"), `"thoughtNumber\":2`) {
		t.Errorf("stage-gated flow did not reach thought 2: %v", directGot)
	}
	// The DELETE at Close ended the session.
	if n := p.tel.state.sessions.Load(); n != 0 {
		t.Errorf("sessions active after DELETE = %d, want 0", n)
	}
}

// sameRuns fails t unless the direct run made at least `least` exchanges and
// the proxied run made the same exchanges and got the same results.
func sameRuns(t *testing.T, least int, directWire, proxyWire []wireRecord, directGot, proxyGot []string) {
	t.Helper()
	if len(directWire) < least {
		t.Fatalf("direct run recorded only %d exchanges", len(directWire))
	}
	if fmt.Sprint(directGot) != fmt.Sprint(proxyGot) {
		t.Errorf("results differ:\ndirect: %v\nproxy:  %v", directGot, proxyGot)
	}
	if len(directWire) != len(proxyWire) {
		t.Fatalf("direct made %d exchanges, proxied %d", len(directWire), len(proxyWire))
	}
	for i := range directWire {
		if directWire[i] != proxyWire[i] {
			t.Errorf("exchange %d differs:\ndirect: %+v\nproxy:  %+v", i, directWire[i], proxyWire[i])
		}
	}
}

// rawCase is a sequence of raw HTTP requests; {{SID}} is replaced by the
// session id the first step's initialize obtained.
type rawCase struct {
	name           string
	steps          []rawStep
	testServerOnly bool
}

type rawStep struct {
	method, body string
	headers      map[string]string
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func withSession(extra map[string]string) map[string]string {
	h := map[string]string{"Mcp-Session-Id": "{{SID}}", "Mcp-Protocol-Version": "2025-11-25"}
	for k, v := range extra {
		h[k] = v
	}
	return h
}

var rawCases = []rawCase{
	{"notification answered 202 by the upstream", []rawStep{
		{"POST", initBody, nil},
		{"POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, withSession(nil)},
		{"POST", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`, withSession(nil)},
	}, false},
	{"request without session", []rawStep{{"POST", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil}}, false},
	{"unknown session is 404", []rawStep{{"POST", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		map[string]string{"Mcp-Session-Id": "mcp-session-00000000-0000-0000-0000-000000000000", "Mcp-Protocol-Version": "2025-11-25"}}}, false},
	{"unknown method is a JSON-RPC error", []rawStep{
		{"POST", initBody, nil},
		{"POST", `{"jsonrpc":"2.0","id":3,"method":"no/such"}`, withSession(nil)},
	}, false},
	{"batch", []rawStep{
		{"POST", initBody, nil},
		{"POST", `[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`, withSession(nil)},
	}, false},
	{"invalid JSON", []rawStep{{"POST", initBody, nil}, {"POST", `{"jsonrpc":`, withSession(nil)}}, false},
	{"wrong content type", []rawStep{{"POST", initBody, nil}, {"POST", `{"jsonrpc":"2.0","id":6,"method":"ping"}`,
		withSession(map[string]string{"Content-Type": "text/plain"})}}, false},
	{"unsupported protocol version header", []rawStep{{"POST", initBody, nil}, {"POST", `{"jsonrpc":"2.0","id":7,"method":"ping"}`,
		withSession(map[string]string{"Mcp-Protocol-Version": "1999-01-01"})}}, false},
	{"DELETE ends the session", []rawStep{
		{"POST", initBody, nil},
		{"DELETE", "", withSession(nil)},
		{"POST", `{"jsonrpc":"2.0","id":8,"method":"ping"}`, withSession(nil)},
	}, false},
	{"tool answer streamed as SSE", []rawStep{
		{"POST", initBody, nil},
		{"POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, withSession(nil)},
		{"POST", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"progress_steps","arguments":{"steps":3},"_meta":{"progressToken":"p"}}}`, withSession(nil)},
	}, true},
	{"stage-gated gateway flow", []rawStep{
		{"POST", initBody, nil},
		{"POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, withSession(nil)},
		{"POST", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"cipher"}}}`, withSession(nil)},
		{"POST", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"start_new","args":{"newWork":{"project":"p"}}}}}`, withSession(nil)},
		{"POST", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"cipher"}}}`, withSession(nil)},
	}, false},
}

// runRaw plays a case and returns, per step, status, content type, whether
// a session header came back, and the body with the session id masked.
func runRaw(t *testing.T, url string, c rawCase) []string {
	var out []string
	sid := ""
	for _, s := range c.steps {
		h := map[string]string{}
		for k, v := range s.headers {
			h[k] = strings.ReplaceAll(v, "{{SID}}", sid)
		}
		resp, body := rawDo(t, s.method, url, s.body, h)
		if got := resp.Header.Get("Mcp-Session-Id"); got != "" && sid == "" {
			sid = got
		}
		if sid != "" {
			body = strings.ReplaceAll(body, sid, "SID")
		}
		out = append(out, fmt.Sprintf("%s %d %q session=%v allow=%q body=%q", s.method, resp.StatusCode,
			resp.Header.Get("Content-Type"), resp.Header.Get("Mcp-Session-Id") != "", resp.Header.Get("Allow"), body))
	}
	return out
}

// TestTransparentOnTheWire compares raw exchanges, error paths included:
// status codes, bodies and headers must come through unchanged, and
// notifications must get the upstream's 202, never an invented answer.
func TestTransparentOnTheWire(t *testing.T) {
	for _, up := range []struct {
		name string
		url  string
	}{{"reference server", startReference(t).URL}, {"test server", startUpstream(t).URL}} {
		_, px := startProxy(t, up.url, nil)
		for _, c := range rawCases {
			if c.testServerOnly && up.name != "test server" {
				continue
			}
			t.Run(up.name+"/"+c.name, func(t *testing.T) {
				direct := runRaw(t, up.url+sidecartest.Path, c)
				proxied := runRaw(t, px.URL+sidecartest.Path, c)
				for i := range direct {
					if direct[i] != proxied[i] {
						t.Errorf("step %d differs:\ndirect: %s\nproxy:  %s", i, direct[i], proxied[i])
					}
				}
			})
		}
		// Spot checks that the comparison compared something meaningful.
		notif := runRaw(t, px.URL+sidecartest.Path, rawCases[0])
		if !strings.HasPrefix(notif[1], "POST 202") || !strings.HasSuffix(notif[1], `body=""`) {
			t.Errorf("%s: notification through the proxy: %s; want the upstream's empty 202", up.name, notif[1])
		}
		gone := runRaw(t, px.URL+sidecartest.Path, rawCases[2])
		if !strings.HasPrefix(gone[0], "POST 404") {
			t.Errorf("%s: unknown session through the proxy: %s; want 404", up.name, gone[0])
		}
	}
}

// TestGETStreamRelayed opens the server-to-client SSE stream through the
// proxy and receives a notification the server pushes on it.
func TestGETStreamRelayed(t *testing.T) {
	up := startUpstream(t)
	p, px := startProxy(t, up.URL, nil)
	url := px.URL + sidecartest.Path
	resp, _ := rawPost(t, url, initBody, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	rawPost(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, withSessionID(sid))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range withSessionID(sid) {
		req.Header.Set(k, v)
	}
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK || !isEventStream(stream.Header) {
		t.Fatalf("GET: %d %q", stream.StatusCode, stream.Header.Get("Content-Type"))
	}
	waitFor(t, "GET stream counted", func() bool { return p.tel.state.sseGet.Load() == 1 })

	call, body := rawPost(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notify_later","arguments":{"delay_ms":20}}}`, withSessionID(sid))
	if call.StatusCode != http.StatusOK || !strings.Contains(body, "scheduled") {
		t.Fatalf("notify_later: %d %s", call.StatusCode, body)
	}
	sc := bufio.NewScanner(stream.Body)
	found := false
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data:") && strings.Contains(sc.Text(), `"later"`) {
			found = true
			break
		}
	}
	if !found {
		t.Fatalf("notification never arrived on the GET stream: %v", sc.Err())
	}
	waitFor(t, "notification counted", func() bool {
		return p.Counts().Notifications[Notification{"notifications/message", DirectionOut}] == 1
	})
	cancel()
	waitFor(t, "GET stream released", func() bool { return p.tel.state.sseGet.Load() == 0 })
}

func withSessionID(sid string) map[string]string {
	return map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
}

// waitFor polls cond for up to 5 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// referenceScenario drives an mcp-go client through the reference server's
// stage-gated flow and its lists, and returns the wire transcript and
// results.
func referenceScenario(t *testing.T, base string) ([]wireRecord, []string) {
	t.Helper()
	rec := &wireRecorder{}
	c := newClient(t, base, transport.WithHTTPBasicClient(&http.Client{Transport: rec}))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var got []string
	note := func(v any, err error) {
		if err != nil {
			got = append(got, "error: "+err.Error())
			return
		}
		b, _ := json.Marshal(v)
		got = append(got, rec.normal(string(b)))
	}
	note(c.ListTools(ctx, mcp.ListToolsRequest{}))
	resources, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	note(resources, err)
	note(c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{}))
	note(c.ListPrompts(ctx, mcp.ListPromptsRequest{}))
	if err == nil && len(resources.Resources) > 0 {
		note(c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: resources.Resources[0].URI}}))
	}
	note(nil, c.Ping(ctx))
	call := func(args map[string]any) {
		note(c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "thoughtbox_gateway", Arguments: args}}))
	}
	call(map[string]any{"operation": "thought", "args": map[string]any{"thought": "too early"}})
	call(map[string]any{"operation": "start_new", "args": map[string]any{"newWork": map[string]any{"project": "p"}}})
	call(map[string]any{"operation": "cipher"})
	call(map[string]any{"operation": "thought", "args": map[string]any{"thought": "one", "nextThoughtNeeded": true}})
	call(map[string]any{"operation": "thought", "args": map[string]any{"thought": "two", "nextThoughtNeeded": true}})
	call(map[string]any{"operation": "no_such_operation"})
	note(c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "no_such_tool"}}))
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	return rec.records, got
}

// TestTransparentWithReferenceServer runs the reference server's
// stage-gated flow with an mcp-go client directly and through the proxy:
// the same exchanges (status, headers, bodies) and results, generated ids
// and timestamps aside; the same session behaviour (the flow only
// advances within one MCP session); and the proxy's counts match.
func TestTransparentWithReferenceServer(t *testing.T) {
	directWire, directGot := referenceScenario(t, startReference(t).URL)
	p, px := startProxy(t, startReference(t).URL, nil)
	proxyWire, proxyGot := referenceScenario(t, px.URL)

	sameRuns(t, 12, directWire, proxyWire, directGot, proxyGot)
	all := strings.Join(proxyGot, "\n")
	for _, want := range []string{`"isError":true`, `thoughtNumber\": 2`} {
		if !strings.Contains(all, want) {
			t.Errorf("flow results lack %s: %v", want, proxyGot)
		}
	}
	tc := p.Counts().ToolCalls
	for k, n := range map[ToolCall]int64{
		{"thoughtbox_gateway", "thought", outcome.ToolError}: 1,
		{"thoughtbox_gateway", "start_new", outcome.OK}:      1,
		{"thoughtbox_gateway", "cipher", outcome.OK}:         1,
		{"thoughtbox_gateway", "thought", outcome.OK}:        2,
	} {
		if tc[k] != n {
			t.Errorf("tool calls %+v = %d, want %d (all %v)", k, tc[k], n, tc)
		}
	}
	if n := p.tel.state.sessions.Load(); n != 0 {
		t.Errorf("sessions active after DELETE = %d, want 0", n)
	}
}
