package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// rpcFault is a JSON-RPC error the transport answers itself, before a
// message reaches mcp-go: JSON-RPC 2.0 framing mcp-go does not enforce, and
// inputs it would quote in full.
type rpcFault struct {
	id   json.RawMessage // nil for null
	code int
	msg  string
	data any // the error's data, if any
}

// envelope is what the framing check reads of a message.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method json.RawMessage `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	Params json.RawMessage `json:"params"`
	// batch marks a JSON-RPC batch (an array), of which nothing is read.
	batch bool
}

// method returns the message's method ("" when there is none).
func (e envelope) method() string {
	if m, ok := jsonx.PlainString(e.Method); ok {
		return m
	}
	var m string
	_ = json.Unmarshal(e.Method, &m)
	return m
}

// envelopeKeys are the members of a message the framing check reads.
var envelopeKeys = []string{"id", "method", "result", "error", "params"}

// readEnvelope reads the envelope of a message without reflection, as
// encoding/json would (the last of repeated members wins), and reports
// false when it is not sure it reads it the same way (a member whose key
// matches one of envelopeKeys only case-insensitively, escaped keys,
// invalid JSON, anything but an object); the caller then uses
// encoding/json.
func readEnvelope(body []byte) (envelope, bool) {
	var env envelope
	var buf [8]jsonx.Member
	members, ok := jsonx.AppendMembers(buf[:0], body)
	if !ok {
		return env, false
	}
	for _, m := range members {
		switch string(m.Key) {
		case "id":
			env.ID = m.Value
		case "method":
			env.Method = m.Value
		case "result":
			env.Result = m.Value
		case "error":
			env.Error = m.Value
		case "params":
			env.Params = m.Value
		default:
			for _, k := range envelopeKeys {
				if bytes.EqualFold(m.Key, []byte(k)) {
					return env, false
				}
			}
		}
	}
	return env, true
}

// toolName returns the "name" member of a tools/call's params (valid JSON
// from a message readEnvelope read), decoded as encoding/json would, and
// whether there is one.
func toolName(params []byte) (string, bool) {
	var buf [8]jsonx.Member
	if members, ok := jsonx.AppendMembersOfValid(buf[:0], params); ok {
		name, found, sure := "", false, true
		for _, m := range members {
			switch {
			case string(m.Key) == "name":
				name, found = jsonx.PlainString(m.Value)
				sure = sure && found
			case bytes.EqualFold(m.Key, []byte("name")):
				sure = false
			}
		}
		if sure {
			return name, found
		}
	}
	var p struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(params, &p) != nil {
		return "", false
	}
	return p.Name, true
}

// validID reports whether raw is a JSON-RPC id MCP allows: a string or a
// number (not null).
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		return true
	}
	return false
}

// plainRequest reads a request of exactly jsonrpc "2.0", an id, a method
// and params (an object), each once, and returns the method, the id to
// answer with (answerID) and the params; ok is false for any other message.
// The fast paths and the kept answers take only such requests.
//
// body must be valid JSON (inspect has checked it).
func plainRequest(body []byte) (method string, id, params []byte, ok bool) {
	var buf [6]jsonx.Member
	members, ok := jsonx.AppendMembersOfValid(buf[:0], body)
	if !ok || len(members) != 4 {
		return "", nil, nil, false
	}
	seen := 0
	for _, m := range members {
		switch string(m.Key) {
		case "jsonrpc":
			ok = string(m.Value) == `"2.0"` && seen&1 == 0
			seen |= 1
		case "id":
			ok = validID(m.Value) && seen&2 == 0
			id = answerID(m.Value)
			seen |= 2
		case "method":
			method, ok = jsonx.PlainString(m.Value)
			ok = ok && seen&4 == 0
			seen |= 4
		case "params":
			params, ok = m.Value, len(m.Value) > 0 && m.Value[0] == '{' && seen&8 == 0
			seen |= 8
		default:
			ok = false
		}
		if !ok {
			return "", nil, nil, false
		}
	}
	return method, id, params, true
}

// inspect checks one JSON-RPC message (of a batch it reads nothing but that
// it is one: env.batch) and returns what it read of it, or the error to
// answer instead of handling it:
//   - a body that is not JSON: parse error;
//   - anything but an object (JSON null included): invalid request;
//   - "id": null or an id that is neither string nor number: invalid
//     request (JSON-RPC 2.0 answers it with id null; MCP forbids null ids);
//   - an id without a method, result or error: invalid request, answered
//     with that id;
//   - a method name or tools/call tool name too long to quote: not found,
//     quoting a bounded prefix.
func inspect(body []byte) (envelope, *rpcFault) {
	body = bytes.TrimSpace(body)
	env, ok := envelope{}, false
	if len(body) > 0 && body[0] == '{' {
		env, ok = readEnvelope(body)
	}
	if !ok {
		env = envelope{}
		if len(body) == 0 || !jsonx.Valid(body) {
			return env, &rpcFault{code: mcp.PARSE_ERROR, msg: "Parse error: the message is not valid JSON"}
		}
		if body[0] == '[' {
			env.batch = true
			return env, nil
		}
		if body[0] != '{' {
			return env, &rpcFault{code: mcp.INVALID_REQUEST, msg: "Invalid Request: a JSON-RPC message must be an object"}
		}
		if err := json.Unmarshal(body, &env); err != nil {
			return env, &rpcFault{code: mcp.INVALID_REQUEST, msg: "Invalid Request: " + err.Error()}
		}
	}
	hasID := env.ID != nil
	if hasID && !validID(env.ID) {
		return env, &rpcFault{code: mcp.INVALID_REQUEST, msg: "Invalid Request: id must be a string or a number (MCP does not allow null)"}
	}
	var id json.RawMessage
	if hasID {
		id = env.ID
	}
	if env.Method == nil {
		if env.Result != nil || env.Error != nil {
			return env, nil // a response to a request of the server (sampling)
		}
		return env, &rpcFault{id: id, code: mcp.INVALID_REQUEST, msg: "Invalid Request: a request needs a method"}
	}
	method, ok := jsonx.PlainString(env.Method)
	if !ok && json.Unmarshal(env.Method, &method) != nil || method == "" {
		return env, &rpcFault{id: id, code: mcp.INVALID_REQUEST, msg: "Invalid Request: method must be a non-empty string"}
	}
	if len(method) > clip.Max {
		return env, &rpcFault{id: id, code: mcp.METHOD_NOT_FOUND, msg: "Method " + clip.String(method) + " not found"}
	}
	if method == string(mcp.MethodToolsCall) {
		if name, ok := toolName(env.Params); ok && len(name) > clip.Max {
			return env, &rpcFault{id: id, code: mcp.INVALID_PARAMS, msg: fmt.Sprintf("tool '%s' not found", clip.String(name))}
		}
	}
	return env, nil
}

// faultJSON renders the JSON-RPC error response of f.
func faultJSON(f *rpcFault) []byte {
	id := f.id
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string                  `json:"jsonrpc"`
		ID      json.RawMessage         `json:"id"`
		Error   mcp.JSONRPCErrorDetails `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: mcp.JSONRPCErrorDetails{Code: f.code, Message: f.msg, Data: f.data}})
	return b
}

// idFromPrefix returns the top-level "id" of a JSON-RPC message of which
// only a prefix is at hand (a request too large to read), or nil.
func idFromPrefix(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		k, ok := key.(string)
		if !ok {
			return nil
		}
		if k != "id" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil
			}
			continue
		}
		v, err := dec.Token()
		if err != nil {
			return nil
		}
		switch v := v.(type) {
		case string:
			b, _ := json.Marshal(v)
			return b
		case json.Number:
			return json.RawMessage(v.String())
		}
		return nil
	}
}
