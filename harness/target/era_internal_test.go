package target

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// decodedAlone is what encoding/json gives each reader of a 2026-era
// result decoding the whole result into a struct of its member only, as
// the harness did before readModernResult read them in one pass.
func decodedAlone(result string) modernResult {
	var r modernResult
	var rt struct {
		ResultType *string `json:"resultType"`
	}
	if json.Unmarshal([]byte(result), &rt) == nil && rt.ResultType != nil {
		r.resultType = *rt.ResultType
	}
	var more struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	if json.Unmarshal([]byte(result), &more) == nil && more.ResultType == string(mcp.ResultTypeInputRequired) {
		r.input = &inputRequired{InputRequests: more.InputRequests, RequestState: more.RequestState}
	}
	var sc struct {
		StructuredContent struct {
			ContextID string `json:"contextId"`
		} `json:"structuredContent"`
	}
	if json.Unmarshal([]byte(result), &sc) == nil {
		r.contextID = sc.StructuredContent.ContextID
	}
	return r
}

// modernResults are 2026-era results of every shape, well and badly formed.
var modernResults = []string{
	`{"resultType":"complete","content":[{"type":"text","text":"x"}],"structuredContent":{"contextId":"c1"}}`,
	`{"content":[]}`,
	`{"resultType":null}`,
	`{"resultType":""}`,
	`{"resultType":7,"structuredContent":{"contextId":"c2"}}`,
	`{"ResultType":"complete","STRUCTUREDCONTENT":{"ContextId":"c3"}}`,
	`{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}},"requestState":"s1"}`,
	`{"resultType":"input_required","inputRequests":[],"requestState":"s1"}`,
	`{"resultType":"input_required","inputRequests":{"a":{}},"requestState":5}`,
	`{"resultType":"input_required"}`,
	`{"resultType":"input_required","inputRequests":null,"requestState":null}`,
	`{"resultType":"complete","structuredContent":[]}`,
	`{"resultType":"complete","structuredContent":{"contextId":9}}`,
	`{"resultType":"complete","structuredContent":null}`,
	`[1,2]`,
	`"complete"`,
	`{"resultType":"complete"`,
	`{"resultType":"complete","isError":true,"content":[{"type":"text","text":"x"},5],"structuredContent":{"contextId":"c4"}}`,
	`{"resultType":"input_required","resultType":"complete"}`,
	`{"result\u0054ype":"complete"}`,
	`{"resultType":"compl\u0065te","structuredContent":{"contextId":"c\u0035","other":[1,{"contextId":"no"}]}}`,
	`{"structuredContent":{"contextId":"c6","contextId":"c7"}}`,
	`{"structuredContent":{"contextid":"c8"}}`,
	`{"resultType":"\ud800","structuredContent":{"contextId":"\ud800"}}`,
	`{"tools":[{"name":"resultType","inputSchema":{"resultType":"x"}}],"resultType":"complete","_meta":{"resultType":"no"}}`,
}

// TestReadModernResultReadsWhatEachReaderReadAlone reads each result in one
// pass (alone and with the content) and compares with what each reader of a
// member got decoding all of it.
func TestReadModernResultReadsWhatEachReaderReadAlone(t *testing.T) {
	for _, res := range modernResults {
		checkModern(t, res)
	}
}

// FuzzReadModernResult: whatever a result, the one pass reads what each
// reader of a member read alone.
func FuzzReadModernResult(f *testing.F) {
	for _, res := range modernResults {
		f.Add(res)
	}
	f.Fuzz(func(t *testing.T, res string) {
		if json.Valid([]byte(res)) { // a result comes from a decoded response
			checkModern(t, res)
		}
	})
}

// checkModern compares the one pass over res with each member's reader.
func checkModern(t *testing.T, res string) {
	t.Helper()
	got, want := readModernResult(json.RawMessage(res)), decodedAlone(res)
	if !sameModern(got, want) {
		t.Errorf("%s: read %+v, each alone %+v", res, got, want)
	}
	for _, withRaw := range []bool{false, true} {
		if dec, _, err := decodeToolResult(json.RawMessage(res), withRaw); err == nil && !sameModern(dec.modern, want) {
			t.Errorf("%s: decodeToolResult(withRaw %v) read %+v, each alone %+v", res, withRaw, dec.modern, want)
		}
	}
}

// sameModern reports whether a and b read the same.
func sameModern(a, b modernResult) bool {
	if a.resultType != b.resultType || a.contextID != b.contextID || (a.input == nil) != (b.input == nil) {
		return false
	}
	if a.input == nil {
		return true
	}
	x, _ := json.Marshal(a.input)
	y, _ := json.Marshal(b.input)
	return string(x) == string(y)
}

// TestHeaderMembersGiveTheHeadersOfTheWholeParams checks that the members
// headerMembers keeps give the standard headers the whole params give.
func TestHeaderMembersGiveTheHeadersOfTheWholeParams(t *testing.T) {
	thought := map[string]any{"operation": "thought", "args": map[string]any{"thought": strings.Repeat("long ", 100)}}
	cases := []struct {
		method mcp.MCPMethod
		params map[string]any
	}{
		{mcp.MethodToolsCall, map[string]any{"name": "thoughtbox_gateway", "arguments": thought}},
		{mcp.MethodToolsCall, map[string]any{"Name": "upper", "name": "lower", "arguments": thought}},
		{mcp.MethodToolsCall, map[string]any{"NAME": "only upper"}},
		{mcp.MethodToolsCall, map[string]any{"name": 5}},
		{mcp.MethodToolsCall, map[string]any{"name": "ünïcode näme", "_meta": map[string]any{"progressToken": 1}}},
		{mcp.MethodToolsCall, map[string]any{"arguments": thought}},
		{mcp.MethodPromptsGet, map[string]any{"name": "p", "arguments": map[string]any{"a": "b"}}},
		{mcp.MethodResourcesRead, map[string]any{"uri": "thoughtbox://x", "URI": "thoughtbox://y"}},
		{mcp.MethodResourcesRead, map[string]any{"uri": 7}},
		{mcp.MethodToolsList, map[string]any{"cursor": "c"}},
	}
	for _, c := range cases {
		whole, _ := json.Marshal(c.params)
		kept, _ := json.Marshal(headerMembers(c.params))
		raws := map[string]json.RawMessage{}
		for k, v := range c.params {
			raws[k], _ = json.Marshal(v)
		}
		keptRaw, _ := json.Marshal(headerMembers(raws))
		want := mcp.StandardHeaders(string(Era2026), c.method, whole)
		for _, got := range []map[string]string{mcp.StandardHeaders(string(Era2026), c.method, kept), mcp.StandardHeaders(string(Era2026), c.method, keptRaw)} {
			if !maps.Equal(got, want) {
				t.Errorf("%s %s: headers %v, from the whole params %v", c.method, whole, got, want)
			}
		}
		// standardHeaders, first working them out, then kept.
		for i := range 2 {
			if got := standardHeaders(Era2026, string(c.method), c.params); !maps.Equal(got, want) {
				t.Errorf("%s %s, call %d: standardHeaders %v, from the whole params %v", c.method, whole, i+1, got, want)
			}
			if got := standardHeaders(Era2026, string(c.method), raws); !maps.Equal(got, want) {
				t.Errorf("%s %s, call %d: standardHeaders of raw members %v, from the whole params %v", c.method, whole, i+1, got, want)
			}
		}
	}
}

// The kept headers are per era, method and member, and no more than
// maxKeptHeaders are kept: past that, headers are still right.
func TestStandardHeadersKeptPerKey(t *testing.T) {
	for i := range maxKeptHeaders + 50 {
		name := fmt.Sprintf("tool-%d-ü", i)
		for _, method := range []mcp.MCPMethod{mcp.MethodToolsCall, mcp.MethodPromptsGet} {
			params := map[string]any{"name": name, "arguments": map[string]any{"i": i}}
			whole, _ := json.Marshal(params)
			want := mcp.StandardHeaders(string(Era2026), method, whole)
			for range 2 {
				if got := standardHeaders(Era2026, string(method), params); !maps.Equal(got, want) {
					t.Fatalf("%s %s: %v, want %v", method, name, got, want)
				}
			}
		}
	}
	keptHeaders.mu.RLock()
	n := len(keptHeaders.kept)
	keptHeaders.mu.RUnlock()
	if n > maxKeptHeaders {
		t.Errorf("%d headers kept, at most %d", n, maxKeptHeaders)
	}
}

// TestFrameMeta checks the _meta a 2026-era request carries: the protocol
// version, client info and capabilities, encoded once for the connection
// and the same on every request, with the keys of a _meta the caller gave
// winning, and a _meta that is not an object replaced.
func TestFrameMeta(t *testing.T) {
	c := &Conn{era: Era2026, caps: capabilitiesOf(ConnOptions{Roots: []mcp.Root{{URI: "file:///r"}}})}
	metaOf := func(params map[string]any) map[string]any {
		t.Helper()
		b, err := json.Marshal(c.frame(transportRequest(params)).Params)
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Meta map[string]any `json:"_meta"`
		}
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		return p.Meta
	}
	want := map[string]any{mcp.MetaKeyProtocolVersion: string(Era2026),
		mcp.MetaKeyClientInfo:         map[string]any{"name": clientInfo.Name, "version": clientInfo.Version},
		mcp.MetaKeyClientCapabilities: map[string]any{"roots": map[string]any{}}}
	for i := range 2 {
		if got := metaOf(map[string]any{"name": "t"}); !maps.EqualFunc(got, want, func(a, b any) bool { return jsonEqual(a, b) }) {
			t.Errorf("request %d: _meta %v, want %v", i+1, got, want)
		}
	}
	got := metaOf(map[string]any{"_meta": map[string]any{"progressToken": 7.0, mcp.MetaKeyProtocolVersion: "x"}})
	if got["progressToken"] != 7.0 || got[mcp.MetaKeyProtocolVersion] != "x" || got[mcp.MetaKeyClientInfo] == nil {
		t.Errorf("the caller's _meta is not merged, its keys winning: %v", got)
	}
	if got := metaOf(map[string]any{"_meta": "no"}); got[mcp.MetaKeyProtocolVersion] != string(Era2026) {
		t.Errorf("a _meta that is not an object was kept: %v", got)
	}
}

func transportRequest(params map[string]any) transport.JSONRPCRequest {
	return transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(1)), Method: "tools/call", Params: params}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
