package target

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/internal/jsonscan"
)

// Era is an MCP wire era, named by the revision the harness speaks in it:
// 2025-11-25 (MCP sessions, initialize) or 2026-07-28 (no sessions; each
// request declares its protocol version, client and capabilities in its
// _meta, and over HTTP mirrors its method and name in headers).
type Era string

// The eras the harness speaks.
const (
	Era2025 Era = mcp.ProtocolVersion20251125
	Era2026 Era = mcp.ProtocolVersion20260728
)

// Eras are every era the harness speaks, oldest first.
var Eras = []Era{Era2025, Era2026}

// Modern reports whether e is the stateless era (2026-07-28 or later).
func (e Era) Modern() bool { return mcp.IsModernProtocol(string(e)) }

// OrDefault returns e, or the 2025 era for the zero Era.
func (e Era) OrDefault() Era {
	if e == "" {
		return Era2025
	}
	return e
}

// ParseEras reads an --era value: one era, or "both" (also "all"). An
// empty value is nil: every era the target speaks.
func ParseEras(s string) ([]Era, error) {
	switch strings.TrimSpace(s) {
	case "":
		return nil, nil
	case "both", "all":
		return append([]Era(nil), Eras...), nil
	}
	for _, e := range Eras {
		if string(e) == s {
			return []Era{e}, nil
		}
	}
	return nil, fmt.Errorf("unknown era %q: one of %s, %s or both", s, Era2025, Era2026)
}

// InEra returns t with its connections speaking era unless they name one
// (ConnOptions.Era): a load subject such as embedded:memory@2026-07-28.
func InEra(t Target, era Era) Target { return &eraTarget{Target: t, era: era} }

type eraTarget struct {
	Target
	era Era
}

func (e *eraTarget) Info() Info {
	i := e.Target.Info()
	i.Era = e.era
	return i
}

// Unwrap returns the target InEra decorated.
func (e *eraTarget) Unwrap() Target { return e.Target }

// proxied reports whether t is a decorator that puts a proxy (the sidecar)
// in front of the server, seen through InEra.
func proxied(t Target) bool {
	for {
		e, ok := t.(*eraTarget)
		if !ok {
			break
		}
		t = e.Target
	}
	_, ok := t.(Wrapper)
	return ok
}

// ErrEraNotSpoken is Connect's error when the target does not speak the
// era asked for (a 2025-only server answers a 2026 request as a legacy
// one, or refuses it).
var ErrEraNotSpoken = fmt.Errorf("the target does not speak this MCP era")

// clientInfo is who the harness says it is.
var clientInfo = mcp.Implementation{Name: "tbbench", Version: "0.1.0"}

// frame gives a request of a 2026-era connection what that era asks of it:
// the protocol version, client info and capabilities in params._meta
// (keys the caller set there win), and the Mcp-Protocol-Version,
// Mcp-Method and Mcp-Name headers (the stdio transport ignores headers). A
// 2025-era request is returned as it is.
func (c *Conn) frame(req transport.JSONRPCRequest) transport.JSONRPCRequest {
	if !c.era.Modern() {
		return req
	}
	switch p := req.Params.(type) {
	case map[string]any:
		q := make(map[string]any, len(p)+1)
		maps.Copy(q, p)
		if m, ok := p["_meta"].(map[string]any); ok {
			meta := c.modernMeta()
			maps.Copy(meta, m)
			q["_meta"] = meta
		} else {
			// The usual case: the _meta encoded once for the connection.
			q["_meta"] = c.metaJSON()
		}
		req.Params = q
	default:
		meta := c.modernMeta()
		fields := map[string]json.RawMessage{}
		if p != nil {
			b, err := json.Marshal(p)
			if err != nil || json.Unmarshal(b, &fields) != nil {
				return req // not an object: sent as it is, for the server to refuse
			}
		}
		var m map[string]any
		if raw, ok := fields["_meta"]; ok && json.Unmarshal(raw, &m) == nil {
			maps.Copy(meta, m)
		}
		fields["_meta"], _ = json.Marshal(meta)
		req.Params = fields
	}
	h := http.Header{}
	maps.Copy(h, req.Header)
	h.Set(mcp.HeaderProtocolVersion, string(c.era))
	for k, v := range standardHeaders(c.era, req.Method, req.Params) {
		h.Set(k, v)
	}
	req.Header = h
	return req
}

// standardHeaders returns mcp.StandardHeaders of a request with these
// params (framed: _meta added). When the one member it reads is a name or
// a uri given as a string, as a tool call's name is, the headers are kept
// for the next request with the same era, method and member: working them
// out (an encoding of the member and mcp-go decoding it again) was 1.7 %
// of the harness's CPU in a 2026 load run. The map returned is shared:
// read only.
func standardHeaders(era Era, method string, params any) map[string]string {
	var raw []byte
	switch p := params.(type) {
	case map[string]any:
		members := headerMembers(p)
		if len(members) == 1 {
			for k, v := range members {
				if s, ok := v.(string); ok {
					return keptHeaders.get(headerKey{era: era, method: method, member: k, value: s})
				}
			}
		}
		raw, _ = json.Marshal(members)
	case map[string]json.RawMessage:
		raw, _ = json.Marshal(headerMembers(p))
	}
	return mcp.StandardHeaders(string(era), mcp.MCPMethod(method), raw)
}

// headerKey is what a request's standard headers depend on when the one
// member they read is a string.
type headerKey struct {
	era                   Era
	method, member, value string
}

// headerCache keeps the standard headers of up to maxKeptHeaders keys (a
// target's tool names and the like; a run that sends names without end
// works the others out each time).
type headerCache struct {
	mu   sync.RWMutex
	kept map[headerKey]map[string]string
}

const maxKeptHeaders = 256

var keptHeaders = &headerCache{kept: map[headerKey]map[string]string{}}

func (c *headerCache) get(k headerKey) map[string]string {
	c.mu.RLock()
	h, ok := c.kept[k]
	c.mu.RUnlock()
	if ok {
		return h
	}
	raw, _ := json.Marshal(map[string]string{k.member: k.value})
	h = mcp.StandardHeaders(string(k.era), mcp.MCPMethod(k.method), raw)
	c.mu.Lock()
	if len(c.kept) < maxKeptHeaders {
		c.kept[k] = h
	}
	c.mu.Unlock()
	return h
}

// modernMeta returns the _meta a 2026-era request of the connection
// carries: the protocol version, client info and capabilities.
func (c *Conn) modernMeta() map[string]any {
	return map[string]any{mcp.MetaKeyProtocolVersion: string(c.era), mcp.MetaKeyClientInfo: clientInfo,
		mcp.MetaKeyClientCapabilities: c.caps}
}

// metaJSON returns modernMeta encoded, once per connection: encoding it
// for every request was a load run's most frequent encoding by reflection.
func (c *Conn) metaJSON() json.RawMessage {
	c.metaOnce.Do(func() { c.meta = marshal(c.modernMeta()) })
	return c.meta
}

// headerMembers returns the members of params that mcp.StandardHeaders
// reads (mcp.ExtractHeaderName decodes a name or a uri, its keys matched as
// encoding/json matches them, without regard to case): the others, a
// thought's text among them, need not be encoded for it on every call.
func headerMembers[V any](params map[string]V) map[string]V {
	out := make(map[string]V, 1)
	for k, v := range params {
		if strings.EqualFold(k, "name") || strings.EqualFold(k, "uri") {
			out[k] = v
		}
	}
	return out
}

// capabilitiesOf are the client capabilities a connection declares.
func capabilitiesOf(o ConnOptions) mcp.ClientCapabilities {
	var caps mcp.ClientCapabilities
	if o.Sampling != NoSampling {
		caps.Sampling = &mcp.SamplingCapability{}
	}
	if o.Roots != nil {
		caps.Roots = &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{}
	}
	return caps
}

// inputRequired is the part of a 2026-era result that asks the client for
// input before the call can finish (a multi round-trip request, SEP-2322).
type inputRequired struct {
	InputRequests map[string]json.RawMessage
	RequestState  string
}

// modernResult is what the harness reads of a 2026-era result besides its
// content.
type modernResult struct {
	// resultType is the result's resultType ("" when it has none, or one
	// that is not a string).
	resultType string
	// input is the multi round-trip request when resultType is
	// input_required and inputRequests and requestState are of their
	// types (nil otherwise).
	input *inputRequired
	// contextID is structuredContent.contextId ("" when none, or not a
	// string).
	contextID string
}

// modernMembers are the members of a 2026-era result that modernResult is
// read from, each raw.
type modernMembers struct {
	ResultType        json.RawMessage `json:"resultType"`
	InputRequests     json.RawMessage `json:"inputRequests"`
	RequestState      json.RawMessage `json:"requestState"`
	StructuredContent json.RawMessage `json:"structuredContent"`
}

// readModernResult reads a 2026-era result, for a result decodeToolResult
// has not read (a tools/list answer is large, and this is every call's
// cost on the client's side of a load run): in one pass that decodes
// nothing else, or with encoding/json when the pass leaves it to that.
func readModernResult(result json.RawMessage) modernResult {
	m, ok := scanModernMembers(result)
	if !ok {
		m = modernMembers{}
		if json.Unmarshal(result, &m) != nil {
			return modernResult{} // not an object
		}
	}
	return m.read()
}

// read decodes each member alone, as encoding/json would decode the whole
// result into a struct of that member only (keys matched without regard to
// case, the last of a repeated key kept).
func (m modernMembers) read() modernResult {
	var r modernResult
	// decodes reports whether member (nil when absent) decodes into v.
	decodes := func(member json.RawMessage, v any) bool { return member == nil || json.Unmarshal(member, v) == nil }
	if !decodeString(m.ResultType, &r.resultType) {
		r.resultType = ""
	}
	if r.resultType == string(mcp.ResultTypeInputRequired) {
		var in inputRequired
		if decodes(m.InputRequests, &in.InputRequests) && decodes(m.RequestState, &in.RequestState) {
			r.input = &in
		}
	}
	r.contextID = contextIDOf(m.StructuredContent)
	return r
}

// decodeString decodes member (nil when absent) into s as json.Unmarshal
// would, and reports whether it decodes: a plain string without
// encoding/json.
func decodeString(member json.RawMessage, s *string) bool {
	if member == nil {
		return true
	}
	if u, ok := jsonscan.Unquote(member); ok {
		*s = u
		return true
	}
	return json.Unmarshal(member, s) == nil
}

// contextIDOf is structuredContent's contextId ("" when sc is nil, or it
// has none, or one that is not a string), as encoding/json would decode sc
// into a struct of that field.
func contextIDOf(sc json.RawMessage) string {
	if sc == nil {
		return ""
	}
	var id string
	if jsonscan.EachNamed(sc, func(_ string, v []byte) bool {
		var ok bool
		id, ok = jsonscan.Unquote(v)
		return ok
	}, "contextId") {
		return id
	}
	var v struct {
		ContextID string `json:"contextId"`
	}
	if json.Unmarshal(sc, &v) != nil {
		return ""
	}
	return v.ContextID
}

// answerInputs fulfils a multi round-trip request's inputRequests as the
// connection's options say (the same answers the 2025 era gives to the
// server's own requests) and returns the inputResponses.
func (c *Conn) answerInputs(ctx context.Context, requests map[string]json.RawMessage) (map[string]any, error) {
	out := make(map[string]any, len(requests))
	for key, raw := range requests {
		var r struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("input request %q: %w", key, err)
		}
		switch mcp.MCPMethod(r.Method) {
		case mcp.MethodSamplingCreateMessage:
			h := samplerFor(c.opts.Sampling)
			if h == nil {
				return nil, fmt.Errorf("input request %q asks for sampling, which this connection did not declare", key)
			}
			var req mcp.CreateMessageRequest
			_ = json.Unmarshal(r.Params, &req.CreateMessageParams)
			res, err := h.CreateMessage(ctx, req)
			if err != nil {
				return nil, err
			}
			out[key] = res
		case mcp.MethodListRoots:
			if c.opts.Roots == nil {
				return nil, fmt.Errorf("input request %q asks for roots, which this connection did not declare", key)
			}
			out[key] = mcp.ListRootsResult{Roots: c.opts.Roots}
		default:
			return nil, fmt.Errorf("input request %q asks for %s, which the harness cannot answer", key, r.Method)
		}
	}
	return out, nil
}

// RawMessage returns what a raw HTTP POST of body (one JSON-RPC message)
// needs to belong to this connection: in the 2025 era its session headers,
// the body unchanged; in the 2026 era the body with the era's _meta and the
// headers that mirror it.
func (c *Conn) RawMessage(body string) (map[string]string, string, error) {
	if !c.era.Modern() {
		if c.SessionID() == "" {
			return nil, "", fmt.Errorf("the connection has no MCP session id (stdio?)")
		}
		return map[string]string{mcp.HeaderSessionID: c.SessionID(), mcp.HeaderProtocolVersion: ProtocolVersion}, body, nil
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &msg); err != nil || msg == nil {
		return nil, "", fmt.Errorf("the body is not one JSON-RPC message (an object): %.80q", body)
	}
	var method string
	_ = json.Unmarshal(msg["method"], &method)
	var params any
	if p, ok := msg["params"]; ok {
		params = p
	}
	req := c.frame(transport.JSONRPCRequest{Method: method, Params: params})
	msg["params"], _ = json.Marshal(req.Params)
	out, err := json.Marshal(msg)
	if err != nil {
		return nil, "", err
	}
	h := map[string]string{}
	for k := range req.Header {
		h[k] = req.Header.Get(k)
	}
	return h, string(out), nil
}

// Ping asks the server a request that must succeed and changes nothing:
// ping in the 2025 era, server/discover in the 2026 era (which has no
// ping).
func (c *Conn) Ping(ctx context.Context) error {
	method := "ping"
	if c.era.Modern() {
		method = string(mcp.MethodServerDiscover)
	}
	_, err := c.Request(ctx, method, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// UseContext makes the connection carry context id from now on, as a
// client that kept a context's handle and reconnected would (another
// server process on the same data serves it too). It is an error in the
// 2025 era, where the MCP session is the context.
func (c *Conn) UseContext(id string) error {
	if !c.era.Modern() {
		return fmt.Errorf("in %s the MCP session is the context: there is no context handle to carry", c.era)
	}
	c.contextID.Store(&id)
	return nil
}
