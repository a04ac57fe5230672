package sidecar

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// metaProtocolVersion is the _meta key of a 2026-era request's protocol
// version.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// call is one JSON-RPC request between its arrival and its answer. All its
// strings are label values from allow-lists, except id, which is only
// compared.
type call struct {
	id      string
	method  string
	tool    string // tools/call
	op      string // tools/call
	target  string // prompts/get: prompt name; resources/*: the URI if the upstream listed it
	scheme  string // resources/read: legacy resource_scheme label
	version string // mcp.protocol.version, "" when unknown
	start   time.Time
	sent    time.Time  // when it went upstream; zero if it never did
	span    trace.Span // nil when not tracing
	done    bool
}

// begin starts measuring the request m, which arrived at start; ctx carries
// the trace context of the transport (HTTP headers), which the request's
// own params._meta overrides. When tracing, the returned context carries
// the call's span.
func (t *telemetry) begin(ctx context.Context, m *message, start time.Time) (context.Context, *call) {
	c := &call{id: m.id, method: m.method, start: start}
	switch c.method {
	case "tools/call":
		c.tool, c.op = t.vocab.toolLabels(member(m.params, "name"), member(member(m.params, "arguments"), "operation"))
	case "prompts/get":
		c.target = t.vocab.promptLabel(member(m.params, "name"))
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		uri := member(m.params, "uri")
		c.target = t.vocab.resourceLabel(uri)
		if c.method == "resources/read" && t.legacy != nil {
			c.scheme = t.vocab.schemeLabel(uri)
		}
	}
	// A 2026-era request declares its protocol version in its own _meta;
	// a 2025-era one inherits the connection's (the header over HTTP,
	// what initialize negotiated over stdio).
	if pv, ok := stringValue(member(member(m.params, "_meta"), metaProtocolVersion)); ok {
		c.version = protocolVersionLabel(string(pv))
	}
	if t.attrs.transport == transportPipe {
		c.sent = start // the line goes to the server's stdin right away
		if v := t.pipeVersion.Load(); v != nil && c.version == "" {
			c.version = *v
		}
	}
	t.message(kindRequest, DirectionIn)
	if t.tracer == nil {
		return ctx, c
	}
	return t.startSpan(ctx, m, c)
}

// answer completes c with the JSON-RPC response m, and learns label values
// from successful list results.
func (t *telemetry) answer(c *call, m *message) {
	t.message(kindResponse, DirectionOut)
	if m.err != nil {
		code := Other
		if n, ok := errorCode(m.err); ok {
			code = jsonrpcCodeLabel(n)
		}
		t.finish(c, outcome.Error, code)
		return
	}
	status := outcome.OK
	switch c.method {
	case "tools/call":
		if isToolError(m.result) {
			status = outcome.ToolError
		}
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		t.vocab.learn(c.method, m.result)
	case "initialize":
		pv, _ := stringValue(member(m.result, "protocolVersion"))
		c.version = protocolVersionLabel(string(pv))
		if t.attrs.transport == transportPipe && t.pipeStart.CompareAndSwap(0, time.Now().UnixNano()) {
			t.pipeVersion.Store(&c.version)
		}
	}
	t.finish(c, status, codeNone)
}

// isToolError reports whether a tools/call result has isError: true.
func isToolError(result []byte) bool {
	return string(member(result, "isError")) == "true"
}

// finish records the completed call c once.
func (t *telemetry) finish(c *call, status, code string) {
	if c.done {
		return
	}
	c.done = true
	now := time.Now()
	d := now.Sub(c.start)
	et := errorType(status, code)
	// With a sampled span in the context, the histograms keep its trace id
	// as an exemplar.
	ctx := context.Background()
	if c.span != nil {
		ctx = trace.ContextWithSpan(ctx, c.span)
	}
	ls := t.attrs.get(attrKey{fam: famOperation, a: c.method, b: c.subject(), c: c.op, d: et, e: c.version})
	t.inst.serverOp.Record(ctx, d.Seconds(), ls.rec...)
	if !c.sent.IsZero() {
		t.inst.clientOp.Record(ctx, now.Sub(c.sent).Seconds(), ls.recClient...)
	}
	if t.legacy != nil {
		t.legacyFinish(c, status, code, d.Seconds())
	}
	if c.span != nil {
		t.endSpan(c, et)
	}
	if t.log.Enabled(ctx, slog.LevelDebug) {
		t.log.LogAttrs(ctx, slog.LevelDebug, "mcp request",
			slog.String("method", c.method), slog.String("tool", c.tool), slog.String("operation", c.op),
			slog.String("status", status), slog.String("error_type", et), slog.Duration("duration", d))
	}
}

// subject is what the call is about: its tool, prompt or resource.
func (c *call) subject() string {
	if c.method == "tools/call" {
		return c.tool
	}
	return c.target
}

// message counts one JSON-RPC message of kind k.
func (t *telemetry) message(k kind, direction string) {
	t.state.messages[dirIndex(direction)][k].Add(1)
}

// notification counts one notification; method is a label value.
func (t *telemetry) notification(method, direction string) {
	ctx := context.Background()
	t.inst.notifications.Add(ctx, 1, t.attrs.get(attrKey{fam: famNotification, a: method, b: direction}).add...)
	if t.legacy != nil {
		t.legacy.notifications.Add(ctx, 1, t.attrs.get(attrKey{fam: famLegacyNotification, a: method, b: direction}).add...)
	}
	t.message(kindNotification, direction)
}

// wireBytes counts message bytes in a direction.
func (t *telemetry) wireBytes(direction string, n int) {
	t.state.bytes[dirIndex(direction)].Add(int64(n))
}

// observeInbound counts a client message that is not a request.
func (t *telemetry) observeInbound(m *message) {
	switch m.kind {
	case kindNotification:
		t.notification(m.method, DirectionIn)
	default:
		t.message(m.kind, DirectionIn)
	}
}

// observeOutbound counts a server message that is not an answer to a
// pending call.
func (t *telemetry) observeOutbound(m *message) {
	switch m.kind {
	case kindNotification:
		t.notification(m.method, DirectionOut)
	default:
		t.message(m.kind, DirectionOut)
	}
}
