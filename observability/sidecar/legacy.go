package sidecar

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/metric"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// Legacy metric names: those of releases before the semantic conventions
// (and of the original sidecar), emitted besides today's only with
// Config.LegacyMetrics, for one release. observability/README.md maps
// each to its successor.
const (
	legacyRequests        = "mcp_requests_total"
	legacyRequestDuration = "mcp_request_duration_seconds"
	legacyProtocolErrors  = "mcp_protocol_errors_total"
	legacyToolCalls       = "mcp_tool_calls_total"
	legacyToolDuration    = "mcp_tool_duration_seconds"
	legacyToolsListed     = "mcp_tools_listed_total"
	legacyResourcesListed = "mcp_resources_listed_total"
	legacyResourceReads   = "mcp_resource_reads_total"
	legacyPromptsListed   = "mcp_prompts_listed_total"
	legacyPromptGets      = "mcp_prompt_gets_total"
	legacyNotifications   = "mcp_notifications_total"
	legacyMessages        = "mcp_messages_total"
	legacyMessageBytes    = "mcp_message_bytes_total"
	legacySSEEvents       = "mcp_sse_events_total"
	legacyUpstreamHTTP    = "mcp_upstream_http_responses_total"
	legacyCheckDuration   = "mcp_upstream_check_duration_seconds"
	legacyOverhead        = "mcp_proxy_overhead_seconds"
	legacyRejected        = "mcp_proxy_rejected_total"
	legacyInflight        = "mcp_inflight_requests"
	legacyActiveConns     = "mcp_active_connections"
	legacySessionsActive  = "mcp_sessions_active"
	legacySSEStreams      = "mcp_sse_streams_active"
	legacyUpstreamUp      = "mcp_upstream_available"
	legacyUpstreamLastOK  = "mcp_upstream_last_success_timestamp_seconds"
	legacyBuildInfo       = "mcp_build_info"
)

// legacyInstruments are the instruments under their legacy names.
type legacyInstruments struct {
	requests        metric.Int64Counter
	duration        metric.Float64Histogram
	protocolErrors  metric.Int64Counter
	toolCalls       metric.Int64Counter
	toolDuration    metric.Float64Histogram
	toolsListed     metric.Int64Counter
	resourcesListed metric.Int64Counter
	resourceReads   metric.Int64Counter
	promptsListed   metric.Int64Counter
	promptGets      metric.Int64Counter
	notifications   metric.Int64Counter
	sseEvents       metric.Int64Counter
	upstreamHTTP    metric.Int64Counter
	checkDuration   metric.Float64Histogram
	overhead        metric.Float64Histogram
	rejected        metric.Int64Counter
}

func newLegacyInstruments(m metric.Meter) (*legacyInstruments, error) {
	var errs []error
	counter := func(name, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	histogram := func(name, desc string) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithDescription(desc), metric.WithUnit("s"),
			metric.WithExplicitBucketBoundaries(durationBuckets...))
		errs = append(errs, err)
		return h
	}
	const dep = " Legacy name, see mcp.server.operation.duration."
	in := &legacyInstruments{
		requests:        counter(legacyRequests, "Completed JSON-RPC requests by method and status."+dep),
		duration:        histogram(legacyRequestDuration, "Time from the request's arrival at the proxy to its answer, in seconds (allow-listed methods only)."+dep),
		protocolErrors:  counter(legacyProtocolErrors, "Failed requests by method and error code."+dep),
		toolCalls:       counter(legacyToolCalls, "Completed tools/call requests by tool, operation and status."+dep),
		toolDuration:    histogram(legacyToolDuration, "Duration of tools/call requests by tool, operation and status, in seconds (advertised tools only)."+dep),
		toolsListed:     counter(legacyToolsListed, "Completed tools/list requests."+dep),
		resourcesListed: counter(legacyResourcesListed, "Completed resources/list requests."+dep),
		resourceReads:   counter(legacyResourceReads, "Completed resources/read requests by URI scheme and status."+dep),
		promptsListed:   counter(legacyPromptsListed, "Completed prompts/list requests."+dep),
		promptGets:      counter(legacyPromptGets, "Completed prompts/get requests by prompt and status."+dep),
		notifications:   counter(legacyNotifications, "JSON-RPC notifications by method and direction (in: client to server). Legacy name of "+MetricNotifications+"."),
		sseEvents:       counter(legacySSEEvents, "SSE events relayed from the upstream, by stream. Legacy name of "+MetricSSEEvents+"."),
		upstreamHTTP:    counter(legacyUpstreamHTTP, "HTTP responses received from the upstream by status code. Legacy name of "+MetricUpstreamHTTP+"."),
		checkDuration:   histogram(legacyCheckDuration, "Duration of upstream availability probes by result, in seconds. Legacy name of "+MetricCheckDuration+"."),
		overhead:        histogram(legacyOverhead, "Time the proxy adds to a JSON answer, in seconds. Legacy name of "+MetricOverhead+"."),
		rejected:        counter(legacyRejected, "Requests the proxy refused itself, by reason. Legacy name of "+MetricRejected+"."),
	}
	return in, errors.Join(errs...)
}

// legacyFinish records the completed call c under the legacy names.
// Histograms are kept for allow-listed methods and tools only, as they
// were.
func (t *telemetry) legacyFinish(c *call, status, code string, secs float64) {
	l := t.legacy
	ctx := context.Background()
	ls := t.attrs.get(attrKey{fam: famRequest, a: c.method, b: status})
	l.requests.Add(ctx, 1, ls.add...)
	if c.method != Other {
		l.duration.Record(ctx, secs, ls.rec...)
	}
	if status == outcome.Error {
		l.protocolErrors.Add(ctx, 1, t.attrs.get(attrKey{fam: famError, a: c.method, b: code}).add...)
	}
	srv := t.attrs.get(attrKey{fam: famServer}).add
	switch c.method {
	case "tools/call":
		tl := t.attrs.get(attrKey{fam: famTool, a: c.tool, b: c.op, c: status})
		l.toolCalls.Add(ctx, 1, tl.add...)
		if c.tool != Other {
			l.toolDuration.Record(ctx, secs, tl.rec...)
		}
	case "tools/list":
		l.toolsListed.Add(ctx, 1, srv...)
	case "resources/list":
		l.resourcesListed.Add(ctx, 1, srv...)
	case "prompts/list":
		l.promptsListed.Add(ctx, 1, srv...)
	case "resources/read":
		l.resourceReads.Add(ctx, 1, t.attrs.get(attrKey{fam: famResource, a: c.scheme, b: status}).add...)
	case "prompts/get":
		l.promptGets.Add(ctx, 1, t.attrs.get(attrKey{fam: famPrompt, a: c.target, b: status}).add...)
	}
}
