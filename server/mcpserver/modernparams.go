package mcpserver

import (
	"bytes"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/internal/jsonscan"
)

// modernParams returns what checkModernRequest reads of a 2026-era
// request's params: the protocol version in its _meta and the name (of the
// tool called), as encoding/json decodes them into
// struct{Meta *mcp.Meta `json:"_meta"`; Name string `json:"name"`} and
// Meta.ProtocolVersion reads the version ("" for a value that is not a
// string). Decoding the whole params with encoding/json on every request
// was 1.5 % of the memory server's CPU in that era, most of it in a
// thought's text; the members are found by scanning instead, and the
// cases the scan does not settle (a name in another case or escaped, a
// member given twice, a string with escapes it does not decode) go to
// encoding/json. params is valid JSON (the request was checked whole).
func modernParams(params []byte) (version, name string) {
	var metaRaw, nameRaw []byte
	read := func(n string, v []byte) bool {
		if n == "_meta" {
			metaRaw = v
		} else {
			nameRaw = v
		}
		return true
	}
	if jsonscan.EachNamed(params, read, "_meta", "name") {
		v, vok := metaVersion(metaRaw)
		n, nok := stringOrEmpty(nameRaw)
		if vok && nok {
			return v, n
		}
	}
	var p struct {
		Meta *mcp.Meta `json:"_meta"`
		Name string    `json:"name"`
	}
	_ = json.Unmarshal(params, &p)
	return p.Meta.ProtocolVersion(), p.Name
}

// metaVersion reads the protocol version of a _meta value (nil when
// absent) as mcp.Meta does: the last member of that exact name, "" when
// it is not a string. ok is false when the value is neither an object nor
// null (mcp.Meta refuses it, and encoding/json stops there, so whether the
// name was read depends on the order of the members), a key has an escape,
// or the version is a string Unquote does not decode.
func metaVersion(meta []byte) (version string, ok bool) {
	switch {
	case meta == nil || string(meta) == "null":
		return "", true
	case meta[0] != '{':
		return "", false
	}
	var last []byte
	keysPlain := true
	jsonscan.EachMember(meta, func(k, v []byte) {
		keysPlain = keysPlain && bytes.IndexByte(k, '\\') < 0
		if string(k) == mcp.MetaKeyProtocolVersion {
			last = v
		}
	})
	if !keysPlain {
		return "", false
	}
	return stringOrEmpty(last)
}

// stringOrEmpty decodes v when it is a JSON string, and gives "" for any
// other value or none (encoding/json leaves a string field empty then).
// ok is false when Unquote cannot decode the string.
func stringOrEmpty(v []byte) (s string, ok bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", true
	}
	return jsonscan.Unquote(v)
}
