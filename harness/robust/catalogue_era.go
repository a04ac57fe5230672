package robust

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// critiqueThought is the thought the 2026 era's set-up records on the main
// connection asking for a critique; the requestState inputs retry it.
const critiqueThought = `{"thought":"Catalogue step to critique","nextThoughtNeeded":true,"critique":true}`

// eraThought is a valid thought on the main connection: an input that
// carries it and is served anyway shows as a change in the read-back.
var eraThought = thoughtWith(`"thought":"must not be recorded"`)

// unknownContextID returns 32 random hex digits: a context no server issued.
func unknownContextID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// eraInputs returns the 2026-07-28 era's own bad inputs: a request's
// _meta and Mcp-* headers that do not agree with it or with the server,
// contextIds that name no context, and requestStates the server did not
// issue for the call.
func eraInputs() []Input {
	const (
		version = "a 2026-07-28 request over HTTP carries Mcp-Protocol-Version and the same version in _meta " +
			"(io.modelcontextprotocol/protocolVersion), one the server speaks: -32602 when _meta has none, -32020 when they differ, " +
			"-32022 for a version it does not speak, each with HTTP 400 (SEP-2243, SEP-2575)"
		metaRule = "a request that declares no protocol version the server speaks in _meta is not a 2026-07-28 request: " +
			"refused (-32602, -32022), or served as a legacy request, which cannot name a 2026 context (SEP-2575; D26)"
		headers = "Mcp-Method and, for tools/call, Mcp-Name mirror the body's method and tool name; a missing or different one " +
			"is refused with -32020 and HTTP 400 before anything runs (SEP-2243)"
		context = "a contextId the server never issued, or that is not a string, is an error naming it; it never runs in " +
			"another or a fresh context (D26)"
		state = "a requestState the server did not issue for this call and context is refused, and the call it would " +
			"finish changes nothing (D27; SEP-2322)"
		unasked = "inputResponses on a call that asked for nothing are ignored or refused; either way the call is " +
			"answered and nothing changes (SEP-2322)"
	)
	// A thought on the main connection's context: recorded if the server
	// served it anyway.
	thought := `{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{"name":"` + gatewayTool +
		`","arguments":{"operation":"thought","contextId":"{contextId}","args":` + eraThought + `}}}`
	in := []Input{
		// The protocol version, over HTTP: header and _meta.
		{Name: "era/meta-protocolVersion-missing", Rule: version, Layer: LayerWire, Body: thought,
			DropMeta: []string{mcp.MetaKeyProtocolVersion}},
		{Name: "era/header-protocolVersion-older-than-meta", Rule: version, Layer: LayerWire, Body: thought,
			Header: map[string]string{mcp.HeaderProtocolVersion: string(target.Era2025)}},
		{Name: "era/header-protocolVersion-newer-than-meta", Rule: version, Layer: LayerWire,
			Body: withMeta(thought, `{"`+mcp.MetaKeyProtocolVersion+`":"`+string(target.Era2025)+`"}`)},
		{Name: "era/header-protocolVersion-unknown", Rule: version, Layer: LayerWire, Body: thought,
			Header: map[string]string{mcp.HeaderProtocolVersion: "2026-07-29"}},
		// The headers that mirror the body.
		{Name: "era/header-Mcp-Method-mismatch", Rule: headers, Layer: LayerWire, Body: thought,
			Header: map[string]string{mcp.HeaderMethod: "tools/list"}},
		{Name: "era/header-Mcp-Method-missing", Rule: headers, Layer: LayerWire, Body: thought,
			Header: map[string]string{mcp.HeaderMethod: ""}},
		{Name: "era/header-Mcp-Name-mismatch", Rule: headers, Layer: LayerWire, Body: thought,
			Header: map[string]string{mcp.HeaderName: observabilityTool}},
		{Name: "era/header-Mcp-Name-missing", Rule: headers, Layer: LayerWire, Body: thought,
			Header: map[string]string{mcp.HeaderName: ""}},
		{Name: "era/header-Mcp-Name-base64-mismatch", Rule: headers, Layer: LayerWire, Body: thought,
			Header: map[string]string{mcp.HeaderName: "=?base64?b2JzZXJ2YWJpbGl0eV9nYXRld2F5?="}},
	}
	// The protocol version in _meta, on every transport (over HTTP the
	// header says the same).
	for name, v := range map[string]string{"null": `null`, "number": `20260728`, "empty": `""`} {
		in = append(in, Input{Name: "era/meta-protocolVersion-" + name, Rule: metaRule, Layer: LayerTool, Tool: gatewayTool,
			Arguments: gateway(`"thought"`, eraThought), Params: map[string]json.RawMessage{"_meta": json.RawMessage(`{"` + mcp.MetaKeyProtocolVersion + `":` + v + `}`)}})
	}
	in = append(in, Input{Name: "era/meta-protocolVersion-unsupported", Rule: version, Layer: LayerTool, Tool: gatewayTool,
		Arguments: gateway(`"thought"`, eraThought), Params: map[string]json.RawMessage{"_meta": json.RawMessage(`{"` + mcp.MetaKeyProtocolVersion + `":"2099-01-01"}`)},
		Header: map[string]string{mcp.HeaderProtocolVersion: "2099-01-01"}})

	// Contexts: get_state, which a server that ignored the contextId would
	// answer normally in a fresh context. Contexts are bearer handles, so
	// one minted for another connection is no error; ids no server could
	// have minted (not 32 hex digits) are.
	for name, v := range map[string]string{
		"unknown": jsonString(unknownContextID()), "number": `42`, "boolean": `true`, "object": `{"id":"x"}`, "empty": `""`,
		"not-hex": jsonString("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"), "short": jsonString("0123456789abcdef"),
		"long": jsonString(unknownContextID() + unknownContextID()), "path-like": `"../../../etc/passwd"`, "with-NUL": `"ab\u0000cd"`,
		"1MiB": mib1JSON(),
	} {
		in = append(in, Input{Name: "era/contextId-" + name, Rule: context, Layer: LayerTool, Tool: gatewayTool,
			Arguments: json.RawMessage(`{"operation":"get_state","contextId":` + v + `}`)})
	}
	// A thought naming an unknown context: never recorded anywhere.
	in = append(in, Input{Name: "era/contextId-unknown-thought", Rule: context, Layer: LayerTool, Tool: gatewayTool,
		Arguments: json.RawMessage(`{"operation":"thought","contextId":` + jsonString(unknownContextID()) + `,"args":` + eraThought + `}`)})

	// requestStates: the set-up's critique thought retried.
	retry := gateway(`"thought"`, critiqueThought)
	for name, k := range map[string]StateKind{"tampered": StateTampered, "truncated": StateTruncated, "garbage": StateGarbage} {
		in = append(in, Input{Name: "era/requestState-" + name, Rule: state, Layer: LayerTool, Tool: gatewayTool, Arguments: retry, RequestState: k})
	}
	in = append(in, Input{Name: "era/requestState-other-context", Rule: state, Layer: LayerTool, Tool: gatewayTool, Arguments: retry,
		RequestState: StateReal, Conn: ConnFresh})
	in = append(in, Input{Name: "era/requestState-other-operation", Rule: state, Layer: LayerTool, Tool: gatewayTool,
		Arguments: gateway(`"cipher"`, ""), RequestState: StateReal})

	// inputResponses nobody asked for.
	for name, args := range map[string]json.RawMessage{"get_state": gateway(`"get_state"`, ""), "cipher": gateway(`"cipher"`, ""),
		"read_thoughts": gateway(`"read_thoughts"`, `{"range":[1,100]}`)} {
		in = append(in, Input{Name: "era/inputResponses-unasked-" + name, Rule: unasked, Layer: LayerTool, Tool: gatewayTool,
			Arguments: args, InputResponses: true, Expect: AnsweredOrRefused})
	}
	for i := range in {
		in[i].Era = target.Era2026
	}
	return in
}

// withMeta returns a JSON-RPC request body with params._meta set to meta
// (the body's params must open with a member).
func withMeta(body, meta string) string {
	return strings.Replace(body, `"params":{`, `"params":{"_meta":`+meta+`,`, 1)
}
