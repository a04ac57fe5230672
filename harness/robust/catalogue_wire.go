package robust

import (
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// MaxBody is the largest HTTP request body a server must accept (D14):
// 4 MiB. One byte more gets 413.
const MaxBody = 4 << 20

// paddedPing returns a ping request of exactly n bytes.
func paddedPing(n int) string {
	head := `{"jsonrpc":"2.0","id":{id},"method":"ping","params":{"_meta":{"pad":"`
	tail := `"}}}`
	// {id} is replaced by a number of idWidth digits.
	size := len(head) - len("{id}") + idWidth + len(tail)
	return head + strings.Repeat("p", n-size) + tail
}

// wireInputs returns the inputs sent as raw HTTP to the MCP endpoint.
func wireInputs() []Input {
	var in []Input
	add := func(i Input) {
		i.Layer = LayerWire
		in = append(in, i)
	}
	const (
		parse   = "a body that is not JSON gets a JSON-RPC parse error (-32700) or a 4xx (JSON-RPC 2.0 §5.1)"
		invalid = "a message that is not a valid JSON-RPC request gets -32600 or a 4xx (JSON-RPC 2.0 §5.1)"
		batch   = "JSON-RPC batches are not part of MCP 2025-06-18"
		method  = "an unknown method gets -32601 (JSON-RPC 2.0 §5.1)"
		params  = "invalid params get -32602 (JSON-RPC 2.0 §5.1)"
		ctype   = "a POST that is not application/json is refused (MCP Streamable HTTP)"
		session = "an unknown or deleted Mcp-Session-Id gets 404, a missing one 400 (MCP Streamable HTTP; D14)"
		limit   = "bodies up to 4 MiB are accepted, larger ones get 413 with a JSON-RPC error (D14)"
	)
	for name, body := range map[string]string{
		"empty": ``, "open-brace": `{`, "words": `not json`, "open-bracket": `[`,
		"truncated": `{"jsonrpc":"2.0","id":{id},"method":"tools/list"`, "NUL-bytes": "\x00\x00\x00",
		"invalid-UTF-8": "\xff\xfe{\"jsonrpc\":\"2.0\"}", "trailing-garbage": `{"jsonrpc":"2.0","id":{id},"method":"ping"} x`,
		"single-quotes": `{'jsonrpc':'2.0','id':1,'method':'ping'}`,
	} {
		add(Input{Name: "jsonrpc/not-json-" + name, Rule: parse, Body: body})
	}
	for name, body := range map[string]string{
		"null": `null`, "number": `42`, "string": `"ping"`, "boolean": `true`, "empty-object": `{}`,
		"id-without-method":    `{"jsonrpc":"2.0","id":{id}}`,
		"id-null":              `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		"id-object":            `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		"id-array":             `{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
		"id-boolean":           `{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		"method-number":        `{"jsonrpc":"2.0","id":{id},"method":42}`,
		"method-null":          `{"jsonrpc":"2.0","id":{id},"method":null}`,
		"jsonrpc-1.0":          `{"jsonrpc":"1.0","id":{id},"method":"ping"}`,
		"jsonrpc-missing":      `{"id":{id},"method":"ping"}`,
		"jsonrpc-number":       `{"jsonrpc":2,"id":{id},"method":"ping"}`,
		"params-string":        `{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":"all"}`,
		"initialize-on-active": `{"jsonrpc":"2.0","id":{id},"method":"initialize","params":"x"}`,
	} {
		add(Input{Name: "jsonrpc/" + name, Rule: invalid, Body: body})
	}
	for name, body := range map[string]string{
		"empty":         `[]`,
		"two-pings":     `[{"jsonrpc":"2.0","id":{id},"method":"ping"},{"jsonrpc":"2.0","id":{id},"method":"ping"}]`,
		"notification":  `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		"tool-call":     `[{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"thought","args":{"thought":"batched","nextThoughtNeeded":true}}}}]`,
		"nested-arrays": `[[{"jsonrpc":"2.0","id":{id},"method":"ping"}]]`,
	} {
		add(Input{Name: "jsonrpc/batch-" + name, Rule: batch, Body: body})
	}
	for name, m := range map[string]string{"unknown": "bogus/method", "unknown-tools": "tools/bogus", "empty": "",
		"case": "Tools/List", "1MiB": mib1()} {
		add(Input{Name: "jsonrpc/method-" + name, Rule: method, Body: `{"jsonrpc":"2.0","id":{id},"method":` + jsonString(m) + `}`})
	}
	for name, p := range map[string]string{"array": `[]`, "string": `"x"`, "no-name": `{"arguments":{}}`, "name-number": `{"name":1}`,
		"arguments-array": `{"name":"thoughtbox_gateway","arguments":[]}`} {
		add(Input{Name: "jsonrpc/tools-call-params-" + name, Rule: params, Body: `{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":` + p + `}`})
	}
	const ping = `{"jsonrpc":"2.0","id":{id},"method":"ping"}`
	for name, ct := range map[string]string{"text-plain": "text/plain", "form": "application/x-www-form-urlencoded",
		"xml": "application/xml", "none": ""} {
		add(Input{Name: "http/content-type-" + name, Rule: ctype, Body: ping, Header: map[string]string{"Content-Type": ct}})
	}
	add(Input{Name: "http/method-PUT", Rule: "the MCP endpoint answers POST, GET and DELETE only (MCP Streamable HTTP)", Method: "PUT", Body: ping})
	add(Input{Name: "http/method-PATCH", Rule: "the MCP endpoint answers POST, GET and DELETE only (MCP Streamable HTTP)", Method: "PATCH", Body: ping})
	// MCP sessions are the 2025 era's: a 2026-07-28 request has none.
	add(Input{Name: "session/missing-id", Rule: session, Body: ping, Session: SessionNone, Era: target.Era2025})
	add(Input{Name: "session/unknown-id", Rule: session, Body: ping, Session: SessionUnknown, Era: target.Era2025})
	add(Input{Name: "session/deleted-id", Rule: session, Body: ping, Session: SessionDeleted, Era: target.Era2025})
	add(Input{Name: "session/path-like-id", Rule: session, Body: ping, Header: map[string]string{mcp.HeaderSessionID: "../../etc/passwd"}, Era: target.Era2025})
	add(Input{Name: "session/unknown-id-tool-call", Rule: session, Session: SessionUnknown, Era: target.Era2025,
		Body: `{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"get_state"}}}`})
	add(Input{Name: "limit/body-at-4MiB", Rule: limit, Expect: Answered, Body: paddedPing(MaxBody), PadTo: MaxBody})
	add(Input{Name: "limit/body-4MiB-plus-1", Rule: limit, Body: paddedPing(MaxBody + 1), PadTo: MaxBody + 1})
	add(Input{Name: "limit/body-5MiB", Rule: limit, Body: paddedPing(5 << 20), PadTo: 5 << 20})
	return in
}

// Catalogue returns every input of both eras, sorted by name: the inputs
// of one era only (Input.Era) are not applicable in the other.
func Catalogue() []Input {
	in := append(append(toolInputs(), wireInputs()...), eraInputs()...)
	sort.Slice(in, func(i, j int) bool { return in[i].Name < in[j].Name })
	return in
}
