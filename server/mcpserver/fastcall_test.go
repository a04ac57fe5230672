package mcpserver_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// gatewayCall is the body of a tools/call of thoughtbox_gateway.
func gatewayCall(id, arguments string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":` + arguments + `}}`
}

// openRawSession initializes an MCP session over raw HTTP and starts a
// reasoning session on it.
func openRawSession(t *testing.T, h rawHTTP) string {
	t.Helper()
	resp, body := h.do(http.MethodPost, "", initBody, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	h.do(http.MethodPost, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	if resp, body := h.do(http.MethodPost, sid, gatewayCall("1", `{"operation":"start_new","args":{"newWork":{"project":"p"}}}`), nil); resp.StatusCode != 200 {
		t.Fatalf("start_new: %d %s", resp.StatusCode, body)
	}
	h.do(http.MethodPost, sid, gatewayCall("2", `{"operation":"cipher"}`), nil)
	if resp, body := h.do(http.MethodPost, sid, gatewayCall("3", `{"operation":"thought","args":{"thought":"a <b> & \"c\" \u2028 é","nextThoughtNeeded":true}}`), nil); resp.StatusCode != 200 {
		t.Fatalf("thought: %d %s", resp.StatusCode, body)
	}
	return sid
}

// A plain gateway call is answered by the fast path with exactly the bytes
// and headers the general path (mcp-go's HandleMessage) gives the same
// request (which it takes when the request carries no MCP-Protocol-Version
// header).
func TestFastPathAnswersAsTheGeneralPathDoes(t *testing.T) {
	srv, url := newHTTPServer(t, testConfig(t, "memory"))
	h := rawHTTP{t, url}
	sid := openRawSession(t, h)
	if srv.FastCalls() != 3 {
		t.Errorf("%d of a new session's first 3 tool calls took the fast path", srv.FastCalls())
	}
	noVersion := map[string]string{"Mcp-Protocol-Version": ""}
	for _, c := range []struct{ id, arguments string }{
		{`7`, `{"operation":"cipher"}`},
		{`"<a&b>"`, `{"operation":"read_thoughts","args":{"last":1}}`},
		{`-12`, `{"operation":"get_structure"}`},
		{`"ünï"`, `{"operation":"thought","args":{"nextThoughtNeeded":true}}`},            // refused: isError
		{`123456789012345`, `{"operation":"read_thoughts","args":{"thoughtNumber":"x"}}`}, // refused
		{`"s"`, `{"operation":"session","args":{"action":"nope"}}`},
		{`1.5`, `{"operation":"cipher"}`},
		{`"a\u0041"`, `{"operation":"cipher"}`},
		{`12345678901234567890`, `{"operation":"cipher"}`}, // beyond a float64's exact integers
	} {
		req := gatewayCall(c.id, c.arguments)
		before := srv.FastCalls()
		fast, fastBody := h.do(http.MethodPost, sid, req, nil)
		if srv.FastCalls() != before+1 {
			t.Errorf("%s: not answered by the fast path", req)
		}
		slow, slowBody := h.do(http.MethodPost, sid, req, noVersion)
		if srv.FastCalls() != before+1 {
			t.Errorf("%s without a version header: answered by the fast path", req)
		}
		if fastBody != slowBody {
			t.Errorf("%s: bodies differ\nfast: %.400q\ngeneral: %.400q", req, fastBody, slowBody)
		}
		if fast.StatusCode != slow.StatusCode || fast.Header.Get("Content-Type") != slow.Header.Get("Content-Type") {
			t.Errorf("%s: fast %d %q, general %d %q", req, fast.StatusCode, fast.Header.Get("Content-Type"),
				slow.StatusCode, slow.Header.Get("Content-Type"))
		}
	}
}

// Requests the fast path cannot be sure about go the general way, and still
// get their answer.
func TestFastPathLeavesTheRestToTheGeneralPath(t *testing.T) {
	srv, url := newHTTPServer(t, testConfig(t, "memory"))
	h := rawHTTP{t, url}
	sid := openRawSession(t, h)
	params := func(p string) string { return `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":` + p + `}` }
	for name, req := range map[string]string{
		"progress token":         params(`{"name":"thoughtbox_gateway","arguments":{"operation":"cipher"},"_meta":{"progressToken":"p"}}`),
		"other _meta":            params(`{"name":"thoughtbox_gateway","arguments":{"operation":"cipher"},"_meta":{"x":1}}`),
		"unknown params member":  params(`{"name":"thoughtbox_gateway","arguments":{"operation":"cipher"},"task":{}}`),
		"name in another case":   params(`{"Name":"thoughtbox_gateway","arguments":{"operation":"cipher"}}`),
		"other tool":             params(`{"name":"observability_gateway","arguments":{"operation":"health"}}`),
		"no arguments":           params(`{"name":"thoughtbox_gateway"}`),
		"critique":               gatewayCall("9", `{"operation":"thought","args":{"thought":"t","nextThoughtNeeded":true,"critique":true}}`),
		"escaped key in args":    gatewayCall("9", `{"operation":"thought","args":{"thought":"t","nextThoughtNeeded":true,"crit\u0069que":true}}`),
		"operation not listed":   gatewayCall("9", `{"operation":"notebook","args":{"action":"list"}}`),
		"argument in other case": gatewayCall("9", `{"operation":"cipher","Args":{}}`),
		"extra member":           `{"jsonrpc":"2.0","id":9,"method":"tools/call","x":1,"params":{"name":"thoughtbox_gateway","arguments":{"operation":"cipher"}}}`,
		"repeated member":        `{"jsonrpc":"2.0","id":9,"id":10,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"cipher"}}}`,
		"batch":                  "[" + gatewayCall("9", `{"operation":"cipher"}`) + "]",
	} {
		before := srv.FastCalls()
		resp, body := h.do(http.MethodPost, sid, req, nil)
		if srv.FastCalls() != before {
			t.Errorf("%s: answered by the fast path", name)
		}
		if (resp.StatusCode != 200 && name != "batch") || body == "" { // MCP has no batches
			t.Errorf("%s: %d %.200s", name, resp.StatusCode, body)
		}
	}

	// Once the session asks for log messages, its calls are reported in
	// notifications, which only the general path sends.
	h.do(http.MethodPost, sid, `{"jsonrpc":"2.0","id":20,"method":"logging/setLevel","params":{"level":"info"}}`, nil)
	before := srv.FastCalls()
	_, body := h.do(http.MethodPost, sid, gatewayCall("21", `{"operation":"cipher"}`), nil)
	if srv.FastCalls() != before || !strings.Contains(body, "notifications/message") {
		t.Errorf("a call with logging on: fast path %v, answer %.300s", srv.FastCalls() != before, body)
	}
}

// A session served by the fast path for longer than the session timeout
// stays open; idle, it ends. The calls come every 20 ms, far inside the
// timeout, so that only a stall of a whole second on a busy machine could
// end the session between two of them.
func TestFastPathKeepsABusySessionAlive(t *testing.T) {
	cfg := testConfig(t, "memory")
	cfg.SessionTimeout = time.Second
	srv, url := newHTTPServer(t, cfg)
	h := rawHTTP{t, url}
	sid := openRawSession(t, h)
	before := srv.FastCalls()
	for end := time.Now().Add(3 * cfg.SessionTimeout); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if resp, body := h.do(http.MethodPost, sid, gatewayCall("5", `{"operation":"get_structure"}`), nil); resp.StatusCode != 200 {
			t.Fatalf("a busy session was ended: %d %s", resp.StatusCode, body)
		}
	}
	if srv.FastCalls() == before {
		t.Error("no call took the fast path")
	}
	// Idle, it ends as before (a request past the timeout finds it ended,
	// whether or not the sweep has come).
	time.Sleep(cfg.SessionTimeout + 200*time.Millisecond)
	if resp, _ := h.do(http.MethodPost, sid, gatewayCall("6", `{"operation":"get_structure"}`), nil); resp.StatusCode != 404 {
		t.Errorf("an idle session: %d, want 404", resp.StatusCode)
	}
}
