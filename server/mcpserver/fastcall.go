package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/server/gateway"
	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/reply"
)

// The hot path of a reasoning session over Streamable HTTP is one
// tools/call of thoughtbox_gateway after another on an established MCP
// session. mcp-go's HandleMessage decodes such a request several times,
// and encoding/json re-validates the answer it encodes; on a thought that
// is more than the thought costs. fastCall answers the plain case itself,
// producing the very bytes the general path (front.go) writes, and leaves
// everything else to it: a request it cannot be sure about goes the
// general way unchanged.

// fastOperations are the gateway operations fastCall may run: none of them
// sends the client a request (sampling, roots) or a notification of its own.
var fastOperations = []string{"thought", "read_thoughts", "get_structure", "start_new", "cipher",
	"session", "load_context", "list_sessions", "get_state", "navigate"}

// sessionVersions are the protocol versions of the 2025 era, whose requests
// belong to an MCP session; only they take the fast path.
var sessionVersions = []string{mcp.ProtocolVersion20251125, mcp.ProtocolVersion20250618, mcp.ProtocolVersion20250326}

// fastCall answers body, a POST on the established session, when it is a
// plain tools/call of thoughtbox_gateway, and reports whether it did; when
// it reports false it has written nothing.
func (s *Server) fastCall(w http.ResponseWriter, r *http.Request, session *clientSession, body []byte) bool {
	if !slices.Contains(sessionVersions, r.Header.Get(mcp.HeaderProtocolVersion)) {
		return false
	}
	if mcp.LoggingLevelWarning.ShouldSendTo(session.GetLogLevel()) {
		return false // the call would be reported in a log notification
	}
	id, args, ok := plainToolCall(body)
	if !ok {
		return false
	}
	ctx := s.mcp.WithContext(r.Context(), session)
	res := s.callGateway(ctx, session.conn, args)
	s.writeFastAnswer(w, id, resultSize(res), func(out []byte) []byte { return appendToolResult(out, res) })
	return true
}

// writeFastAnswer writes a fast path's answer to the request id (see
// writeAnswer), counted in fastCalls.
func (s *Server) writeFastAnswer(w http.ResponseWriter, id []byte, size int, appendResult func([]byte) []byte) {
	s.fastCalls.Add(1) // before the answer, which a test may count on
	writeAnswer(w, id, size, appendResult)
}

// writeAnswer writes the answer to the request id: a JSON-RPC response
// whose result appendResult appends (about size bytes), with its length.
func writeAnswer(w http.ResponseWriter, id []byte, size int, appendResult func([]byte) []byte) {
	held := answerBuffers.Get().(*[]byte)
	out := (*held)[:0]
	if cap(out) < 320+size {
		out = make([]byte, 0, 320+size)
	}
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":`...)
	out = appendResult(out)
	out = append(out, "}\n"...)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
	// Write has copied out or sent it: the buffer serves the next answer.
	if cap(out) <= maxPooledAnswer {
		*held = out[:0]
		answerBuffers.Put(held)
	}
}

// answerBuffers holds the buffers of the fast paths' answers, so that an
// answer does not grow a new one each time (answers run to 15 KB, and the
// garbage collector's work grows with what is allocated).
var answerBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledAnswer is the largest answer buffer kept for reuse.
const maxPooledAnswer = 1 << 16

// callGateway runs one gateway call, turning a panic into the error result
// mcp-go's recovery gives (as a tool error, so the session goes on).
func (s *Server) callGateway(ctx context.Context, conn *gateway.Conn, args []byte) (r reply.Reply) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic in thoughtbox_gateway", "panic", p)
			r = reply.Reply{IsError: true, Blocks: []reply.Block{{Kind: reply.Text,
				Text: "internal error: the gateway failed on this call"}}}
		}
	}()
	return s.gateway.Call(ctx, conn, args)
}

// plainToolCall reads body as a tools/call of thoughtbox_gateway that
// mcp-go would handle with nothing but the tool handler, and returns its id
// (the answer echoes its bytes) and its arguments. It reports false for
// anything else: other members, a progress token or other _meta than trace
// context, arguments that are not an object, an operation not in
// fastOperations, a thought that asks for a critique (sampling).
//
// body must be valid JSON (inspect has checked it).
func plainToolCall(body []byte) (id, args []byte, ok bool) {
	method, id, params, ok := plainRequest(body)
	if !ok || method != string(mcp.MethodToolsCall) {
		return nil, nil, false
	}
	var pbuf [4]jsonx.Member
	pm, ok := jsonx.AppendMembersOfValid(pbuf[:0], params)
	if !ok {
		return nil, nil, false
	}
	named := false
	for _, m := range pm {
		switch string(m.Key) {
		case "name":
			if named || string(m.Value) != `"thoughtbox_gateway"` {
				return nil, nil, false
			}
			named = true
		case "arguments":
			if args != nil || len(m.Value) == 0 || m.Value[0] != '{' {
				return nil, nil, false
			}
			args = m.Value
		case "_meta":
			if !traceOnlyMeta(m.Value) {
				return nil, nil, false
			}
		default:
			return nil, nil, false
		}
	}
	if !named || args == nil || !fastOperation(args) {
		return nil, nil, false
	}
	return id, args, true
}

// traceOnlyMeta reports whether a request's _meta holds nothing but W3C
// trace context (which a sidecar in front of the server adds).
func traceOnlyMeta(raw []byte) bool {
	var buf [4]jsonx.Member
	ms, ok := jsonx.AppendMembersOfValid(buf[:0], raw)
	if !ok {
		return false
	}
	for _, m := range ms {
		if k := string(m.Key); k != "traceparent" && k != "tracestate" {
			return false
		}
	}
	return true
}

// fastOperation reports whether the gateway arguments args name an
// operation fastCall may run.
func fastOperation(args []byte) bool {
	var buf [4]jsonx.Member
	ms, ok := jsonx.AppendMembersOfValid(buf[:0], args)
	if !ok {
		return false
	}
	op := ""
	for _, m := range ms {
		switch string(m.Key) {
		case "operation":
			if op != "" {
				return false
			}
			if op, ok = jsonx.PlainString(m.Value); !ok {
				return false
			}
		case "args":
			if len(m.Value) > 0 && m.Value[0] == '{' && asksCritique(m.Value) {
				return false
			}
		default:
			return false // encoding/json would match keys case-insensitively
		}
	}
	return slices.Contains(fastOperations, op)
}

// asksCritique reports whether the operation arguments raw (an object)
// have a "critique" member, or keys it cannot read plainly: a thought that
// asks for a critique samples the client.
func asksCritique(raw []byte) bool {
	var buf [16]jsonx.Member
	ms, ok := jsonx.AppendMembersOfValid(buf[:0], raw)
	if !ok {
		return true
	}
	for _, m := range ms {
		if string(m.Key) == "critique" {
			return true
		}
	}
	return false
}

// answerID returns a request's id as the general path echoes it:
// encoding/json writes a json.RawMessage HTML-escaped.
func answerID(raw []byte) []byte {
	if bytes.IndexAny(raw, "<>&\u2028\u2029") < 0 {
		return raw
	}
	var b bytes.Buffer
	json.HTMLEscape(&b, raw)
	return b.Bytes()
}

// appendTextBlock appends a text content block as mcp-go encodes it,
// after a comma when it is not the first.
func appendTextBlock(dst []byte, comma bool, text string) []byte {
	if comma {
		dst = append(dst, ',')
	}
	dst = append(dst, `{"type":"text","text":`...)
	dst = longTexts.appendString(dst, text)
	return append(dst, '}')
}

// resultSize estimates the encoded size of r.
func resultSize(r reply.Reply) int {
	n := 64
	for _, b := range r.Blocks {
		n += len(b.Text) + len(b.URI) + len(b.Name) + len(b.Description) + 96
	}
	return n + n/8
}

// appendToolResult appends r as mcp-go encodes the CallToolResult toResult
// makes of it: the members in key order, strings HTML-escaped.
func appendToolResult(dst []byte, r reply.Reply) []byte {
	if !encodable(r) {
		return appendMarshalled(dst, toResult(r))
	}
	dst = append(dst, `{"content":[`...)
	for i, b := range r.Blocks {
		dst = appendBlock(dst, i > 0, b)
	}
	dst = append(dst, ']')
	if r.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	return append(dst, '}')
}

// appendMarshalled appends res as mcp-go encodes it, for the replies
// appendBlock does not encode itself.
func appendMarshalled(dst []byte, res *mcp.CallToolResult) []byte {
	out, err := res.MarshalJSON()
	if err != nil {
		panic("mcpserver: encoding a tool result: " + err.Error())
	}
	return append(dst, out...)
}

// encodable reports whether appendBlock encodes every block of r: those
// of a kind toResult turns into content (a reply of another kind is left to
// encoding/json, which then encodes what toResult makes of it).
func encodable(r reply.Reply) bool {
	for _, b := range r.Blocks {
		if b.Kind != reply.Text && b.Kind != reply.Resource && b.Kind != reply.ResourceLink {
			return false
		}
	}
	return true
}

// appendBlock appends the content block toResult makes of b as mcp-go's
// types encode it: an embedded text resource's contents without an empty
// mimeType, a resource link with its description and mimeType even when
// empty.
func appendBlock(dst []byte, comma bool, b reply.Block) []byte {
	if comma {
		dst = append(dst, ',')
	}
	switch b.Kind {
	case reply.Resource:
		dst = append(dst, `{"type":"resource","resource":{"uri":`...)
		dst = jsonx.AppendString(dst, b.URI, true)
		if b.MIMEType != "" {
			dst = append(dst, `,"mimeType":`...)
			dst = jsonx.AppendString(dst, b.MIMEType, true)
		}
		dst = append(dst, `,"text":`...)
		dst = longTexts.appendString(dst, b.Text)
		return append(dst, "}}"...)
	case reply.ResourceLink:
		dst = append(dst, `{"type":"resource_link","uri":`...)
		dst = jsonx.AppendString(dst, b.URI, true)
		dst = append(dst, `,"name":`...)
		dst = jsonx.AppendString(dst, b.Name, true)
		dst = append(dst, `,"description":`...)
		dst = jsonx.AppendString(dst, b.Description, true)
		dst = append(dst, `,"mimeType":`...)
		dst = jsonx.AppendString(dst, b.MIMEType, true)
		return append(dst, '}')
	}
	return appendTextBlock(dst, false, b.Text)
}
