package sidecar

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// operationBuckets are the boundaries the MCP semantic conventions
// recommend for their duration histograms, in seconds, with four more below
// their first (10 ms): a local Thoughtbox server answers most calls in well
// under a millisecond, and a p50 or p99 read from buckets that start at
// 10 ms would say nothing about it.
var operationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Names of the semantic conventions' instruments (OpenTelemetry names; on
// /metrics mcp.server.operation.duration becomes
// mcp_server_operation_duration_seconds_bucket, _sum and _count).
var (
	MetricServerOperationDuration = mcpconv.ServerOperationDuration{}.Name()
	MetricClientOperationDuration = mcpconv.ClientOperationDuration{}.Name()
	MetricServerSessionDuration   = mcpconv.ServerSessionDuration{}.Name()
	MetricClientSessionDuration   = mcpconv.ClientSessionDuration{}.Name()
)

// Attributes the sidecar adds to the conventions' own.
const (
	// AttrOperation is the value of a gateway tool's operation argument
	// (the enum of its "operation" property, as the upstream advertised
	// it), on tools/call only, absent for tools without such an enum.
	AttrOperation = attribute.Key("thoughtbox.operation")
	// AttrServerName is the --server-name of the sidecar, on every series.
	AttrServerName = attribute.Key("server_name")
)

// otherValue is the attribute value of a name outside its allow-list, as
// OpenTelemetry's conventions spell it.
const otherValue = "_OTHER"

// Values of error.type besides JSON-RPC error codes and HTTP statuses.
const (
	// ErrorTypeToolError is a tools/call answered with isError: true.
	ErrorTypeToolError = "tool_error"
)

// Values of network.transport.
const (
	transportTCP  = "tcp"
	transportPipe = "pipe"
)

// mcpProtocolVersions is the allow-list of mcp.protocol.version.
var mcpProtocolVersions = map[string]string{
	"2024-11-05": "2024-11-05", "2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18",
	"2025-11-25": "2025-11-25", "2026-07-28": "2026-07-28",
}

// protocolVersionLabel maps a protocol version to its attribute value:
// "" when absent, otherValue when not a published version.
func protocolVersionLabel(v string) string {
	if v == "" {
		return ""
	}
	if s, ok := mcpProtocolVersions[v]; ok {
		return s
	}
	return otherValue
}

// newSemconvInstruments creates the conventions' histograms in in.
func newSemconvInstruments(m metric.Meter, in *instruments) error {
	b := metric.WithExplicitBucketBoundaries(operationBuckets...)
	so, err1 := mcpconv.NewServerOperationDuration(m, b)
	co, err2 := mcpconv.NewClientOperationDuration(m, b)
	ss, err3 := mcpconv.NewServerSessionDuration(m, b)
	cs, err4 := mcpconv.NewClientSessionDuration(m, b)
	in.serverOp, in.clientOp, in.serverSession, in.clientSession = so.Inst(), co.Inst(), ss.Inst(), cs.Inst()
	return errors.Join(err1, err2, err3, err4)
}

// errorType is the error.type of a call that ended with status and code
// (an error_code label of the legacy metrics): "" for success.
func errorType(status, code string) string {
	switch status {
	case outcome.OK:
		return ""
	case outcome.ToolError:
		return ErrorTypeToolError
	case outcome.Cancelled:
		return codeCancelled
	}
	switch {
	case strings.HasPrefix(code, "http_"):
		return code[len("http_"):]
	case code == Other:
		return otherValue
	}
	return code
}

// statusOf is the inverse of errorType: the status of a call whose
// error.type is et.
func statusOf(et string) string {
	switch et {
	case "":
		return outcome.OK
	case ErrorTypeToolError:
		return outcome.ToolError
	case codeCancelled:
		return outcome.Cancelled
	}
	return outcome.Error
}

// semconvValue spells an allow-listed label value as an attribute value.
func semconvValue(v string) string {
	if v == Other {
		return otherValue
	}
	return v
}

// labelValue is the inverse of semconvValue.
func labelValue(v string) string {
	if v == otherValue {
		return Other
	}
	return v
}

// operationAttrs are the attributes of a completed call (famOperation):
// k.a method, k.b tool, prompt or resource URI, k.c operation, k.d
// error.type, k.e mcp.protocol.version.
func (c *attrCache) operationAttrs(k attrKey) []attribute.KeyValue {
	kv := []attribute.KeyValue{
		attribute.String(string(AttrServerName), c.server),
		semconv.McpMethodNameKey.String(semconvValue(k.a)),
		semconv.NetworkTransportKey.String(c.transport),
	}
	if c.transport == transportTCP {
		kv = append(kv, semconv.NetworkProtocolNameKey.String("http"))
	}
	switch k.a {
	case "tools/call":
		kv = append(kv, semconv.GenAIToolNameKey.String(semconvValue(k.b)), semconv.GenAIOperationNameExecuteTool)
		if k.c != None {
			kv = append(kv, AttrOperation.String(semconvValue(k.c)))
		}
	case "prompts/get":
		kv = append(kv, semconv.GenAIPromptNameKey.String(semconvValue(k.b)))
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		if k.b != "" {
			kv = append(kv, semconv.McpResourceURIKey.String(k.b))
		}
	}
	if k.d != "" {
		kv = append(kv, semconv.ErrorTypeKey.String(k.d))
		if k.d[0] == '-' { // a JSON-RPC error code
			kv = append(kv, semconv.RPCResponseStatusCodeKey.String(k.d))
		}
	}
	if k.e != "" {
		kv = append(kv, semconv.McpProtocolVersionKey.String(k.e))
	}
	return kv
}

// sessionAttrs are the attributes of an ended session (famSession): k.a
// error.type, k.e mcp.protocol.version.
func (c *attrCache) sessionAttrs(k attrKey) []attribute.KeyValue {
	kv := []attribute.KeyValue{
		attribute.String(string(AttrServerName), c.server),
		semconv.NetworkTransportKey.String(c.transport),
	}
	if c.transport == transportTCP {
		kv = append(kv, semconv.NetworkProtocolNameKey.String("http"))
	}
	if k.a != "" {
		kv = append(kv, semconv.ErrorTypeKey.String(k.a))
	}
	if k.e != "" {
		kv = append(kv, semconv.McpProtocolVersionKey.String(k.e))
	}
	return kv
}

// clientSide are the attributes the client-side instruments add: the
// upstream's address.
func (c *attrCache) clientSide() []attribute.KeyValue {
	if c.upstreamHost == "" {
		return nil
	}
	return []attribute.KeyValue{semconv.ServerAddressKey.String(c.upstreamHost), semconv.ServerPortKey.Int(c.upstreamPort)}
}

// sessionEnded records a session's duration on both sides: the proxy's
// session with its client is its session with the upstream.
func (t *telemetry) sessionEnded(d time.Duration, errType, version string) {
	ls := t.attrs.get(attrKey{fam: famSession, a: errType, e: version})
	ctx := context.Background()
	t.inst.serverSession.Record(ctx, d.Seconds(), ls.rec...)
	t.inst.clientSession.Record(ctx, d.Seconds(), ls.recClient...)
}
