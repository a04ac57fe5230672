package sidecar

import (
	"context"
	"slices"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/thoughtbox-bench/tbbench/internal/jsonscan"
)

// Trace context travels in a request's params._meta, as the MCP semantic
// conventions say: the sidecar's span takes the client's context from
// there (else from the HTTP headers, which are then linked when both are
// present), and the request forwarded upstream carries the span's context
// in its params._meta (and, over HTTP, in its headers). Only when tracing:
// without a TracerProvider the messages pass byte for byte.

// metaCarrier reads string members of a params._meta object.
type metaCarrier []byte

// Get returns the member key's string value, or "".
func (m metaCarrier) Get(key string) string {
	s, _ := stringValue(member(m, key))
	return string(s)
}

// Set does nothing: the carrier is read-only.
func (metaCarrier) Set(string, string) {}

// Keys returns the member names.
func (m metaCarrier) Keys() []string {
	var keys []string
	jsonscan.EachMember(m, func(k, _ []byte) { keys = append(keys, string(k)) })
	return keys
}

// startSpan starts c's span, child of the context in m's params._meta if
// it has one, else of ctx's.
func (t *telemetry) startSpan(ctx context.Context, m *message, c *call) (context.Context, *call) {
	var links []trace.Link
	if meta := member(m.params, "_meta"); meta != nil {
		outer := trace.SpanContextFromContext(ctx)
		ctx = t.propagator.Extract(ctx, metaCarrier(meta))
		if sc := trace.SpanContextFromContext(ctx); outer.IsValid() && !outer.Equal(sc) {
			links = append(links, trace.Link{SpanContext: outer})
		}
	}
	name := c.method
	attrs := []attribute.KeyValue{semconv.McpMethodNameKey.String(semconvValue(c.method)),
		semconv.NetworkTransportKey.String(t.attrs.transport), AttrServerName.String(t.server)}
	switch c.method {
	case "tools/call":
		name += " " + semconvValue(c.tool)
		attrs = append(attrs, semconv.GenAIToolNameKey.String(semconvValue(c.tool)), semconv.GenAIOperationNameExecuteTool)
		if c.op != None {
			attrs = append(attrs, AttrOperation.String(semconvValue(c.op)))
		}
	case "prompts/get":
		name += " " + semconvValue(c.target)
		attrs = append(attrs, semconv.GenAIPromptNameKey.String(semconvValue(c.target)))
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		if c.target != "" {
			attrs = append(attrs, semconv.McpResourceURIKey.String(c.target))
		}
	}
	ctx, c.span = t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithTimestamp(c.start), trace.WithAttributes(attrs...), trace.WithLinks(links...))
	return ctx, c
}

// endSpan ends c's span; et is its error.type.
func (t *telemetry) endSpan(c *call, et string) {
	if c.version != "" {
		c.span.SetAttributes(semconv.McpProtocolVersionKey.String(c.version))
	}
	if et != "" {
		c.span.SetAttributes(semconv.ErrorTypeKey.String(et))
		if et[0] == '-' {
			c.span.SetAttributes(semconv.RPCResponseStatusCodeKey.String(et))
		}
		c.span.SetStatus(codes.Error, et)
	}
	c.span.End()
}

// traceBody returns body with the context of each call's span in the
// params._meta of its request; msgs are body's messages, and calls those of
// its requests, in order. Without spans body is returned as is.
func (t *telemetry) traceBody(body []byte, msgs []message, calls []*call) []byte {
	if t.tracer == nil || len(calls) == 0 {
		return body
	}
	var edits []edit
	i := 0
	for j := range msgs {
		if msgs[j].kind != kindRequest || i >= len(calls) {
			continue
		}
		if sp := calls[i].span; sp != nil {
			edits = append(edits, t.metaEdits(body, &msgs[j], sp.SpanContext())...)
		}
		i++
	}
	return applyEdits(body, edits)
}

// traceLine is traceBody for one stdio line holding the request m.
func (t *telemetry) traceLine(line []byte, m *message, c *call) []byte {
	if c.span == nil {
		return line
	}
	return applyEdits(line, t.metaEdits(line, m, c.span.SpanContext()))
}

// edit replaces buf[at:at+del] with ins.
type edit struct {
	at, del int
	ins     string
}

// applyEdits applies edits, sorted by position and not overlapping, to a
// copy of buf.
func applyEdits(buf []byte, edits []edit) []byte {
	if len(edits) == 0 {
		return buf
	}
	slices.SortStableFunc(edits, func(a, b edit) int { return a.at - b.at })
	out := make([]byte, 0, len(buf)+128*len(edits))
	last := 0
	for _, e := range edits {
		out = append(out, buf[last:e.at]...)
		out = append(out, e.ins...)
		last = e.at + e.del
	}
	return append(out, buf[last:]...)
}

// offsetIn is the position of sub, a sub-slice of buf, in buf.
func offsetIn(buf, sub []byte) int { return cap(buf) - cap(sub) }

// within reports whether sub is a sub-slice of buf (so that offsetIn
// means something).
func within(buf, sub []byte) bool {
	at := offsetIn(buf, sub)
	return len(sub) > 0 && at >= 0 && at+len(sub) <= len(buf) && &buf[at] == &sub[0]
}

// metaEdits returns the edits of buf that put sc into the params._meta of
// the request m (whose slices point into buf): existing traceparent and
// tracestate members get new values, missing ones are added, and a missing
// _meta or params is created. A params or _meta that is not an object is
// left alone.
func (t *telemetry) metaEdits(buf []byte, m *message, sc trace.SpanContext) []edit {
	if !sc.IsValid() || !within(buf, m.raw) {
		return nil
	}
	values := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(trace.ContextWithSpanContext(context.Background(), sc), values)
	keys := []string{"traceparent", "tracestate"}
	pair := func(k string) string { return strconv.Quote(k) + ":" + strconv.Quote(values[k]) }
	var fresh []string
	for _, k := range keys {
		if values[k] != "" {
			fresh = append(fresh, pair(k))
		}
	}
	joined := func(list []string, more bool) string {
		s := ""
		for i, x := range list {
			if i > 0 {
				s += ","
			}
			s += x
		}
		if more && s != "" {
			s += ","
		}
		return s
	}
	if m.params == nil {
		at := offsetIn(buf, m.raw) + jsonscan.SkipSpace(m.raw, 0) + 1
		return []edit{{at: at, ins: `"params":{"_meta":{` + joined(fresh, false) + `}},`}}
	}
	if !isObject(m.params) {
		return nil
	}
	meta := member(m.params, "_meta")
	if meta == nil {
		at := offsetIn(buf, m.params) + jsonscan.SkipSpace(m.params, 0) + 1
		return []edit{{at: at, ins: `"_meta":{` + joined(fresh, false) + `}` + comma(!isEmptyObject(m.params))}}
	}
	if !isObject(meta) {
		return nil
	}
	var edits []edit
	var added []string
	for _, k := range keys {
		if values[k] == "" {
			continue
		}
		if v := member(meta, k); v != nil {
			edits = append(edits, edit{at: offsetIn(buf, v), del: len(v), ins: strconv.Quote(values[k])})
		} else {
			added = append(added, pair(k))
		}
	}
	if len(added) > 0 {
		at := offsetIn(buf, meta) + jsonscan.SkipSpace(meta, 0) + 1
		edits = append(edits, edit{at: at, ins: joined(added, !isEmptyObject(meta))})
	}
	return edits
}

// isObject reports whether v is a JSON object that scans cleanly.
func isObject(v []byte) bool { return jsonscan.EachMember(v, func(_, _ []byte) {}) }

// isEmptyObject reports whether v is {}.
func isEmptyObject(v []byte) bool {
	empty := true
	jsonscan.EachMember(v, func(_, _ []byte) { empty = false })
	return empty
}

func comma(yes bool) string {
	if yes {
		return ","
	}
	return ""
}
