package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/reply"
	"github.com/thoughtbox-bench/tbbench/server/tasks"
)

// The 2026 era's hot path is the same tools/call of thoughtbox_gateway, in
// a context, each request on its own. The general path (serveModern) reads
// such a request's params five times over and has mcp-go encode the answer
// through a map; fastModernCall answers the plain case itself, with the
// very bytes the general path writes, and leaves everything else to it: a
// request it cannot be sure about goes the general way unchanged.

// modernResultMeta is the _meta mcp-go stamps on every 2026-era result:
// the server's name and version (mcpsrv.MCPServer's decorateResult).
var modernResultMeta = func() []byte {
	m := &mcp.Meta{}
	m.SetServerInfo(mcp.Implementation{Name: Name, Version: Version})
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}()

// gatewayRequiresTask is whether thoughtbox_gateway runs only as a task (it
// does not; a tool that did would be refused without the extension).
var gatewayRequiresTask = tasks.Required(gatewayTool())

// modernCall is what fastModernCall reads of a plain 2026-era tools/call.
type modernCall struct {
	id, args    []byte
	call        callArgs // what callWithArgs reads of args
	caps, info  []byte   // the _meta's client capabilities and client info
	traceparent string
}

// fastModernCall answers body, a 2026-era POST, when it is a plain
// tools/call of thoughtbox_gateway whose headers agree with it, and reports
// whether it did; when it reports false it has written nothing.
func (s *Server) fastModernCall(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if gatewayRequiresTask || !plainModernHeaders(r.Header) {
		return false
	}
	c, ok := plainModernCall(body)
	if !ok {
		return false
	}
	meta, ok := s.clientMeta.decode(c.caps, c.info)
	if !ok {
		return false // the general path refuses it, naming the field
	}
	info := &mcpsrv.RequestProtocolInfo{Modern: true, ProtocolVersion: mcp.ProtocolVersion20260728,
		ClientCapabilities: meta.caps, ClientInfo: meta.client}
	ctx := mcpsrv.WithRequestProtocolInfo(s.taskContext(r.Context()), info)
	if c.traceparent != "" {
		ctx = context.WithValue(ctx, traceParentKey{}, c.traceparent)
	}
	res, contextID := s.callInContext(ctx, c)
	s.writeFastAnswer(w, c.id, resultSize(res), func(out []byte) []byte { return appendModernResult(out, res, contextID) })
	return true
}

// callInContext runs one gateway call in its context, as the general path's
// modernGatewayCall does for a call that asks the client nothing, turning
// a panic into the error result mcp-go's recovery gives.
func (s *Server) callInContext(ctx context.Context, c modernCall) (r reply.Reply, contextID string) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic in thoughtbox_gateway", "panic", p)
			r, contextID = reply.Reply{IsError: true, Blocks: []reply.Block{{Kind: reply.Text,
				Text: "internal error: the gateway failed on this call"}}}, ""
		}
	}()
	return s.callWithArgs(ctx, c.args, c.call, nil, askSampler{ctx}, nil)
}

// plainModernHeaders reports whether a request's headers are those of a
// plain 2026-era call of thoughtbox_gateway that the general path's checks
// (checkModernRequest) pass: the version, Mcp-Method and Mcp-Name exactly,
// no Last-Event-ID and no Mcp-Param-* header.
func plainModernHeaders(h http.Header) bool {
	if h.Get(mcp.HeaderProtocolVersion) != mcp.ProtocolVersion20260728 || h.Get(mcp.HeaderMethod) != string(mcp.MethodToolsCall) ||
		h.Get(mcp.HeaderName) != gatewayToolName || h.Get(mcp.HeaderLastEventID) != "" {
		return false
	}
	for k := range h {
		if strings.HasPrefix(k, mcp.HeaderParamPrefix) {
			return false
		}
	}
	return true
}

// plainModernCall reads body as a 2026-era tools/call of thoughtbox_gateway
// that the general path would handle with nothing but the tool handler:
// jsonrpc, id, method and params, whose members are name, arguments and a
// _meta of the protocol version 2026-07-28, the client's capabilities (an
// object), optionally its info and W3C trace context; the arguments an
// operation of fastOperations that asks for no critique. Anything else
// reports false (inputResponses, requestState, a task, a log level, a
// progress token).
//
// body must be valid JSON (inspect has checked it).
func plainModernCall(body []byte) (c modernCall, ok bool) {
	method, id, params, ok := plainRequest(body)
	if !ok || method != string(mcp.MethodToolsCall) {
		return c, false
	}
	c.id = id
	var pbuf [4]jsonx.Member
	pm, ok := jsonx.AppendMembersOfValid(pbuf[:0], params)
	if !ok || len(pm) != 3 {
		return c, false
	}
	var named, meta bool
	for _, m := range pm {
		switch string(m.Key) {
		case "name":
			if named || string(m.Value) != `"`+gatewayToolName+`"` {
				return c, false
			}
			named = true
		case "arguments":
			if c.args != nil || len(m.Value) == 0 || m.Value[0] != '{' {
				return c, false
			}
			c.args = m.Value
		case "_meta":
			if meta || !readModernMeta(m.Value, &c) {
				return c, false
			}
			meta = true
		default:
			return c, false
		}
	}
	if !named || !meta || c.args == nil {
		return c, false
	}
	if c.call, ok = fastModernOperation(c.args); !ok {
		return c, false
	}
	return c, true
}

// fastModernOperation reads the gateway arguments args (an object) of a
// call fastModernCall may run: an operation of fastOperations (none of them
// long: they never run as tasks), its args asking for no critique, and a
// contextId that is a plain string if any. It reports false for anything
// else.
func fastModernOperation(args []byte) (a callArgs, ok bool) {
	var buf [4]jsonx.Member
	ms, ok := jsonx.AppendMembersOfValid(buf[:0], args)
	if !ok {
		return a, false
	}
	for _, m := range ms {
		switch string(m.Key) {
		case "operation":
			if a.op != "" {
				return a, false
			}
			if a.op, ok = jsonx.PlainString(m.Value); !ok {
				return a, false
			}
		case "args":
			if len(m.Value) > 0 && m.Value[0] == '{' && asksCritique(m.Value) {
				return a, false
			}
		case ContextIDArg:
			if a.named {
				return a, false
			}
			if a.contextID, ok = jsonx.PlainString(m.Value); !ok {
				return a, false
			}
			a.named = true
		default:
			return a, false // encoding/json would match keys case-insensitively
		}
	}
	return a, slices.Contains(fastOperations, a.op)
}

// readModernMeta reads a plain 2026-era _meta into c: the protocol version
// 2026-07-28, the client capabilities (an object), and optionally the
// client info and trace context (plain strings); any other member, or a
// member twice, makes it report false.
func readModernMeta(raw []byte, c *modernCall) bool {
	var buf [6]jsonx.Member
	ms, ok := jsonx.AppendMembersOfValid(buf[:0], raw)
	if !ok {
		return false
	}
	version := false
	for _, m := range ms {
		switch string(m.Key) {
		case mcp.MetaKeyProtocolVersion:
			if version || string(m.Value) != `"`+mcp.ProtocolVersion20260728+`"` {
				return false
			}
			version = true
		case mcp.MetaKeyClientCapabilities:
			if c.caps != nil || len(m.Value) == 0 || m.Value[0] != '{' {
				return false
			}
			c.caps = m.Value
		case mcp.MetaKeyClientInfo:
			if c.info != nil {
				return false
			}
			c.info = m.Value
		case "traceparent":
			tp, ok := jsonx.PlainString(m.Value)
			if !ok || c.traceparent != "" {
				return false
			}
			c.traceparent = tp
		case "tracestate":
			if _, ok := jsonx.PlainString(m.Value); !ok {
				return false
			}
		default:
			return false
		}
	}
	return version && c.caps != nil
}

// modernResult is the result the general path gives a 2026-era call:
// toResult's, with the context's block and structuredContent when the call
// named one, resultType "complete" and the _meta mcp-go stamps on it.
func modernResult(r reply.Reply, contextID string) *mcp.CallToolResult {
	res := toResult(r)
	if contextID != "" {
		res.Content = append(res.Content, mcp.NewTextContent(contextBlock(contextID)))
		res.StructuredContent = map[string]any{ContextIDArg: contextID}
	}
	res.ResultType = mcp.ResultTypeComplete
	res.Meta = &mcp.Meta{}
	res.Meta.SetServerInfo(mcp.Implementation{Name: Name, Version: Version})
	return res
}

// appendModernResult appends the result of a 2026-era call as mcp-go
// encodes it (CallToolResult.MarshalJSON: a map, so its members in key
// order, strings HTML-escaped): _meta with the server's info, content, with
// the context's block last when the call named one, isError, resultType
// "complete" and structuredContent.
func appendModernResult(dst []byte, r reply.Reply, contextID string) []byte {
	if !encodable(r) {
		return appendMarshalled(dst, modernResult(r, contextID))
	}
	dst = append(dst, `{"_meta":`...)
	dst = append(dst, modernResultMeta...)
	dst = append(dst, `,"content":[`...)
	for i, b := range r.Blocks {
		dst = appendBlock(dst, i > 0, b)
	}
	if contextID != "" {
		dst = appendTextBlock(dst, len(r.Blocks) > 0, contextBlock(contextID))
	}
	dst = append(dst, ']')
	if r.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	dst = append(dst, `,"resultType":"complete"`...)
	if contextID != "" {
		dst = append(dst, `,"structuredContent":{"contextId":`...)
		dst = jsonx.AppendString(dst, contextID, true)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}
