package sidecar

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// call is one JSON-RPC request between its arrival and its answer. All its
// strings are label values from allow-lists, except id, which is only
// compared.
type call struct {
	id     string
	method string
	tool   string // tools/call
	op     string // tools/call
	target string // prompts/get: prompt_name; resources/read: resource_scheme
	start  time.Time
	span   trace.Span // nil when not tracing
	done   bool
}

// begin starts measuring the request m, which arrived at start; ctx carries
// the client's trace context. When tracing, the returned context carries
// the call's span.
func (t *telemetry) begin(ctx context.Context, m *message, start time.Time) (context.Context, *call) {
	c := &call{id: m.id, method: m.method, start: start}
	switch c.method {
	case "tools/call":
		c.tool, c.op = t.vocab.toolLabels(member(m.params, "name"), member(member(m.params, "arguments"), "operation"))
	case "prompts/get":
		c.target = t.vocab.promptLabel(member(m.params, "name"))
	case "resources/read":
		c.target = t.vocab.schemeLabel(member(m.params, "uri"))
	}
	t.message(kindRequest, DirectionIn)
	if t.tracer == nil {
		return ctx, c
	}
	name := c.method
	attrs := []attribute.KeyValue{attribute.String("mcp.method.name", c.method), attribute.String("server.name", t.server)}
	switch c.method {
	case "tools/call":
		name += " " + c.tool
		attrs = append(attrs, attribute.String("gen_ai.tool.name", c.tool), attribute.String("mcp.tool.operation", c.op))
	case "prompts/get":
		attrs = append(attrs, attribute.String("mcp.prompt.name", c.target))
	case "resources/read":
		attrs = append(attrs, attribute.String("mcp.resource.scheme", c.target))
	}
	ctx, c.span = t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithTimestamp(start), trace.WithAttributes(attrs...))
	return ctx, c
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
		t.finish(c, StatusError, code)
		return
	}
	status := StatusOK
	switch c.method {
	case "tools/call":
		if isToolError(m.result) {
			status = StatusToolError
		}
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		t.vocab.learn(c.method, m.result)
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
	d := time.Since(c.start)
	secs := d.Seconds()
	ctx := context.Background()
	// Histograms cost a series per bucket, so they are kept for allow-listed
	// methods and tools: invented names are counted, not timed, and a flood
	// of them adds only a few counter series.
	ls := t.attrs.get(attrKey{fam: famRequest, a: c.method, b: status})
	t.inst.requests.Add(ctx, 1, ls.add...)
	if c.method != Other {
		t.inst.duration.Record(ctx, secs, ls.rec...)
	}
	if status == StatusError {
		t.inst.protocolErrors.Add(ctx, 1, t.attrs.get(attrKey{fam: famError, a: c.method, b: code}).add...)
	}
	srv := t.attrs.get(attrKey{fam: famServer}).add
	switch c.method {
	case "tools/call":
		tl := t.attrs.get(attrKey{fam: famTool, a: c.tool, b: c.op, c: status})
		t.inst.toolCalls.Add(ctx, 1, tl.add...)
		if c.tool != Other {
			t.inst.toolDuration.Record(ctx, secs, tl.rec...)
		}
	case "tools/list":
		t.inst.toolsListed.Add(ctx, 1, srv...)
	case "resources/list":
		t.inst.resourcesListed.Add(ctx, 1, srv...)
	case "prompts/list":
		t.inst.promptsListed.Add(ctx, 1, srv...)
	case "resources/read":
		t.inst.resourceReads.Add(ctx, 1, t.attrs.get(attrKey{fam: famResource, a: c.target, b: status}).add...)
	case "prompts/get":
		t.inst.promptGets.Add(ctx, 1, t.attrs.get(attrKey{fam: famPrompt, a: c.target, b: status}).add...)
	}
	if c.span != nil {
		c.span.SetAttributes(attribute.String("mcp.response.status", status))
		if status == StatusError {
			c.span.SetAttributes(attribute.String("rpc.jsonrpc.error_code", code))
			c.span.SetStatus(codes.Error, code)
		}
		c.span.End()
	}
	if t.log.Enabled(ctx, slog.LevelDebug) {
		t.log.LogAttrs(ctx, slog.LevelDebug, "mcp request",
			slog.String("method", c.method), slog.String("tool", c.tool), slog.String("operation", c.op),
			slog.String("status", status), slog.String("error_code", code), slog.Duration("duration", d))
	}
}

// message counts one JSON-RPC message of kind k.
func (t *telemetry) message(k kind, direction string) {
	t.state.messages[dirIndex(direction)][k].Add(1)
}

// notification counts one notification; method is a label value.
func (t *telemetry) notification(method, direction string) {
	ctx := context.Background()
	t.inst.notifications.Add(ctx, 1, t.attrs.get(attrKey{fam: famNotification, a: method, b: direction}).add...)
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
