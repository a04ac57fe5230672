package mcpserver

import (
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// Every client asks for the tool list once per connection, and in the
// 2026 era for server/discover too. mcp-go answers each by decoding the
// request, building the result and encoding it by reflection (the tool
// list is 3.4 KB of schemas): in the 2026 era 7 % of the server's CPU in a
// load run of the ceiling mix, with the goroutine and session a request of
// its own costs. These answers depend on nothing but the request's method,
// its protocol version, client and capabilities, and the server's tools
// and capabilities, which never change while it runs. So the server keeps
// the result of the first answer mcp-go gives to each such request, and
// answers the same request again with it.

// staticMeta are the _meta members a static 2026-era request may carry:
// those its answer may depend on, which are its key, and the W3C trace
// context, which a tracing proxy such as mcp-sidecar adds to every request.
var staticMeta = map[string]bool{
	mcp.MetaKeyProtocolVersion: true, mcp.MetaKeyClientInfo: true, mcp.MetaKeyClientCapabilities: true,
	"traceparent": false, "tracestate": false,
}

// maxStaticAnswers bounds the answers kept: one per method for each kind of
// client (protocol version, name, version and capabilities) that asked.
const maxStaticAnswers = 64

// maxStaticKey bounds a key, which holds what the client declared in
// _meta (a few hundred bytes): a request whose key would be longer is left
// to mcp-go, so that what is kept stays small whatever clients send.
const maxStaticKey = 4096

// staticAnswers are the results kept, by the key of their request
// (modernStaticKey, sessionStaticKey).
type staticAnswers struct {
	mu      sync.RWMutex
	results map[string][]byte
	served  atomic.Int64 // requests answered with a kept result (tests read it)
}

// modernStaticKey is the key of a 2026-era request, body, whose answer
// depends on nothing but its method and _meta, and the id to answer it
// with: server/discover or tools/list (without a cursor) whose params hold
// nothing but a _meta of staticMeta's members, each once (see plainRequest).
// ok is false for any other message.
//
// body must be valid JSON (inspect has checked it).
func modernStaticKey(body []byte) (key string, id []byte, ok bool) {
	method, id, params, ok := plainRequest(body)
	if !ok || (method != string(mcp.MethodServerDiscover) && method != string(mcp.MethodToolsList)) {
		return "", nil, false
	}
	var pbuf [4]jsonx.Member
	pm, ok := jsonx.AppendMembersOfValid(pbuf[:0], params)
	if !ok || len(pm) != 1 || string(pm[0].Key) != "_meta" {
		return "", nil, false
	}
	var mbuf [8]jsonx.Member
	meta, ok := jsonx.AppendMembersOfValid(mbuf[:0], pm[0].Value)
	if !ok {
		return "", nil, false
	}
	key = method
	named := map[string]bool{}
	for _, m := range meta {
		keyed, known := staticMeta[string(m.Key)]
		if !known || named[string(m.Key)] {
			return "", nil, false
		}
		named[string(m.Key)] = true
		if keyed {
			key += "\x00" + string(m.Key) + "\x00" + string(m.Value)
		}
		if len(key) > maxStaticKey {
			return "", nil, false
		}
	}
	return key, id, true
}

// sessionStaticKey is the key of a request, body, of a 2025-era session
// that declared the protocol version in its header, and the id to answer
// it with: tools/list with empty params (see plainRequest). Every 2025-era
// session gets the same tools; the version is in the key all the same.
//
// body must be valid JSON (inspect has checked it).
func sessionStaticKey(version string, body []byte) (key string, id []byte, ok bool) {
	if version == "" {
		return "", nil, false
	}
	method, id, params, ok := plainRequest(body)
	if !ok || method != string(mcp.MethodToolsList) {
		return "", nil, false
	}
	var pbuf [1]jsonx.Member
	if pm, ok := jsonx.AppendMembersOfValid(pbuf[:0], params); !ok || len(pm) != 0 {
		return "", nil, false
	}
	return method + "\x00session\x00" + version, id, true
}

// get returns the result kept for key.
func (a *staticAnswers) get(key string) ([]byte, bool) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	r, ok := a.results[key]
	return r, ok
}

// keep keeps the result of answer, mcp-go's encoded answer to a request
// of key, when it is a result (not an error) as encodeAnswer writes it.
func (a *staticAnswers) keep(key string, answer []byte) {
	var buf [4]jsonx.Member
	members, ok := jsonx.AppendMembers(buf[:0], answer)
	if !ok || len(members) != 3 || string(members[0].Key) != "jsonrpc" || string(members[1].Key) != "id" || string(members[2].Key) != "result" {
		return
	}
	result := append([]byte(nil), members[2].Value...)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.results == nil {
		a.results = map[string][]byte{}
	}
	if len(a.results) >= maxStaticAnswers {
		clear(a.results)
	}
	a.results[key] = result
}

// serveStatic answers request id of key with the result kept for it, and
// reports whether it did; when it reports false it has written nothing.
func (s *Server) serveStatic(w http.ResponseWriter, key string, id []byte) bool {
	result, ok := s.statics.get(key)
	if !ok {
		return false
	}
	s.statics.served.Add(1) // before the answer, which a test may count on
	writeAnswer(w, id, len(result), func(out []byte) []byte { return append(out, result...) })
	return true
}
