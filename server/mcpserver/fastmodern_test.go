package mcpserver_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// modernMeta is the _meta of a plain 2026-era request; extra members are
// added before its closing brace.
func modernMeta(extra string) string {
	return `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{}` + extra + `}`
}

// modernGatewayCall is the body of a 2026-era tools/call of
// thoughtbox_gateway.
func modernGatewayCall(id, arguments, meta string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":` + arguments + `,"_meta":` + meta + `}}`
}

var modernCallHeaders = map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "thoughtbox_gateway"}

// inContextArgs puts contextId beside operation and args.
func inContextArgs(arguments, contextID string) string {
	if contextID == "" {
		return arguments
	}
	return strings.TrimSuffix(arguments, "}") + `,"contextId":"` + contextID + `"}`
}

// volatile are what differs between two contexts that did the same: their
// ids, the reasoning sessions' ids and the times.
var volatile = regexp.MustCompile(`[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d\d-\d\dT[0-9:.-]+Z`)

// A plain 2026-era gateway call is answered by the fast path with the bytes
// and headers the general path gives it. Two contexts go through the same
// calls, one by the fast path and one by the general path (which a _meta
// member the fast path does not know sends it to); their answers must be
// equal but for the contexts' and sessions' ids and the times.
func TestModernFastPathAnswersAsTheGeneralPathDoes(t *testing.T) {
	srv, url := newHTTPServer(t, testConfig(t, "fs"))
	h := rawHTTP{t, url}
	plain, other := modernMeta(""), modernMeta(`,"example.com/unknown":true`)
	contexts := [2]string{}
	for _, c := range []struct{ id, arguments string }{
		{`1`, `{"operation":"start_new","args":{"newWork":{"project":"p"}}}`}, // a resource block: encoded by mcp-go
		{`"<a&b>"`, `{"operation":"cipher"}`},
		{`-12`, `{"operation":"thought","args":{"thought":"a <b> & \"c\" \u2028 é","nextThoughtNeeded":true}}`},
		{`"ünï"`, `{"operation":"thought","args":{"nextThoughtNeeded":true}}`},            // refused: isError
		{`123456789012345`, `{"operation":"read_thoughts","args":{"thoughtNumber":"x"}}`}, // refused
		{`1.5`, `{"operation":"read_thoughts","args":{"last":1}}`},
		{`"a\u0041"`, `{"operation":"get_structure"}`},
		{`12345678901234567890`, `{"operation":"get_state"}`},
		{`7`, `{"operation":"thought","args":{"thought":"two","thoughtNumber":2,"totalThoughts":2,"nextThoughtNeeded":false}}`},
	} {
		var bodies [2]string
		var resps [2]*http.Response
		for i, meta := range []string{plain, other} {
			req := modernGatewayCall(c.id, inContextArgs(c.arguments, contexts[i]), meta)
			before := srv.FastCalls()
			resps[i], bodies[i] = h.do(http.MethodPost, "", req, modernCallHeaders)
			if fast := srv.FastCalls() == before+1; fast != (i == 0) {
				t.Fatalf("%s: answered by the fast path %v", req, fast)
			}
			if contexts[i] == "" {
				var answer struct {
					Result struct {
						StructuredContent struct {
							ContextID string `json:"contextId"`
						} `json:"structuredContent"`
					} `json:"result"`
				}
				_ = json.Unmarshal([]byte(bodies[i]), &answer)
				contexts[i] = answer.Result.StructuredContent.ContextID
			}
		}
		if contexts[0] == "" || contexts[1] == "" {
			t.Fatalf("%s minted no context: %.300s", c.arguments, bodies[0])
		}
		if a, b := volatile.ReplaceAllString(bodies[0], "*"), volatile.ReplaceAllString(bodies[1], "*"); a != b {
			t.Errorf("%s: bodies differ\nfast: %.600q\ngeneral: %.600q", c.arguments, a, b)
		}
		if resps[0].StatusCode != resps[1].StatusCode || resps[0].Header.Get("Content-Type") != resps[1].Header.Get("Content-Type") {
			t.Errorf("%s: fast %d %q, general %d %q", c.arguments, resps[0].StatusCode, resps[0].Header.Get("Content-Type"),
				resps[1].StatusCode, resps[1].Header.Get("Content-Type"))
		}
	}
	// A context that does not exist: the same error from both paths.
	var bodies [2]string
	for i, meta := range []string{plain, other} {
		_, bodies[i] = h.do(http.MethodPost, "", modernGatewayCall("9", inContextArgs(`{"operation":"cipher"}`, strings.Repeat("0", 32)), meta), modernCallHeaders)
	}
	if bodies[0] != bodies[1] || !strings.Contains(bodies[0], `"isError":true`) {
		t.Errorf("an unknown context:\nfast: %.400q\ngeneral: %.400q", bodies[0], bodies[1])
	}
}

// Requests the fast path cannot be sure about go the general way and get
// the general path's answer: a header that disagrees with the body, a
// progress token, a log level, no client capabilities, a critique, a long
// operation, another tool.
func TestModernFastPathLeavesTheRestToTheGeneralPath(t *testing.T) {
	srv, url := newHTTPServer(t, testConfig(t, "memory"))
	h := rawHTTP{t, url}
	headers := func(name string) map[string]string {
		m := map[string]string{}
		for k, v := range modernCallHeaders {
			m[k] = v
		}
		m["Mcp-Name"] = name
		return m
	}
	for _, c := range []struct {
		name, body string
		header     map[string]string
		status     int
	}{
		{"header mismatch", modernGatewayCall("1", `{"operation":"get_state"}`, modernMeta("")), headers("observability_gateway"), http.StatusBadRequest},
		{"progress token", modernGatewayCall("2", `{"operation":"get_state"}`, modernMeta(`,"progressToken":"p"`)), modernCallHeaders, http.StatusOK},
		{"log level", modernGatewayCall("3", `{"operation":"get_state"}`, modernMeta(`,"io.modelcontextprotocol/logLevel":"debug"`)), modernCallHeaders, http.StatusOK},
		{"no capabilities", strings.Replace(modernGatewayCall("4", `{"operation":"get_state"}`, modernMeta("")), `,"io.modelcontextprotocol/clientCapabilities":{}`, "", 1), modernCallHeaders, http.StatusBadRequest},
		{"capabilities of the wrong shape", strings.Replace(modernGatewayCall("5", `{"operation":"get_state"}`, modernMeta("")), `"io.modelcontextprotocol/clientCapabilities":{}`, `"io.modelcontextprotocol/clientCapabilities":{"sampling":5}`, 1), modernCallHeaders, http.StatusBadRequest},
		{"a long operation", modernGatewayCall("6", `{"operation":"deep_analysis","args":{"sessionId":"x","analysisType":"full"}}`, modernMeta("")), modernCallHeaders, http.StatusOK},
		{"another version in the header", modernGatewayCall("7", `{"operation":"get_state"}`, modernMeta("")), map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Mcp-Method": "tools/call", "Mcp-Name": "thoughtbox_gateway"}, http.StatusBadRequest},
	} {
		before := srv.FastCalls()
		resp, body := h.do(http.MethodPost, "", c.body, c.header)
		if srv.FastCalls() != before {
			t.Errorf("%s: answered by the fast path", c.name)
		}
		if resp.StatusCode != c.status || !strings.Contains(body, `"jsonrpc":"2.0"`) {
			t.Errorf("%s: %d %.300s, want %d", c.name, resp.StatusCode, body, c.status)
		}
	}
}
