package sidecar

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// meterName is the instrumentation scope of every instrument, as in the
// original sidecar.
const meterName = "mcp-sidecar"

// durationBuckets are the histogram boundaries in seconds: 0.5 ms to 60 s.
var durationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// Metric names. Those of the original sidecar keep their names; their
// defects (no status label, millisecond buckets for seconds, a drifting
// availability counter, raw client strings as labels) are fixed.
const (
	MetricRequests        = "mcp_requests_total"
	MetricRequestDuration = "mcp_request_duration_seconds"
	MetricProtocolErrors  = "mcp_protocol_errors_total"
	MetricToolCalls       = "mcp_tool_calls_total"
	MetricToolDuration    = "mcp_tool_duration_seconds"
	MetricToolsListed     = "mcp_tools_listed_total"
	MetricResourcesListed = "mcp_resources_listed_total"
	MetricResourceReads   = "mcp_resource_reads_total"
	MetricPromptsListed   = "mcp_prompts_listed_total"
	MetricPromptGets      = "mcp_prompt_gets_total"
	MetricNotifications   = "mcp_notifications_total"
	MetricMessages        = "mcp_messages_total"
	MetricMessageBytes    = "mcp_message_bytes_total"
	MetricSSEEvents       = "mcp_sse_events_total"
	MetricUpstreamHTTP    = "mcp_upstream_http_responses_total"
	MetricCheckDuration   = "mcp_upstream_check_duration_seconds"
	MetricOverhead        = "mcp_proxy_overhead_seconds"
	MetricRejected        = "mcp_proxy_rejected_total"
	MetricInflight        = "mcp_inflight_requests"
	MetricActiveConns     = "mcp_active_connections"
	MetricSessionsActive  = "mcp_sessions_active"
	MetricSSEStreams      = "mcp_sse_streams_active"
	MetricUpstreamUp      = "mcp_upstream_available"
	MetricUpstreamLastOK  = "mcp_upstream_last_success_timestamp_seconds"
	MetricBuildInfo       = "mcp_build_info"
)

// instruments are the synchronous instruments.
type instruments struct {
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

// liveState holds the values behind the observable gauges.
type liveState struct {
	inflight    atomic.Int64
	sessions    atomic.Int64
	ssePost     atomic.Int64
	sseGet      atomic.Int64
	available   atomic.Int64 // 0 or 1
	lastSuccess atomic.Int64 // unix nanoseconds, 0 = never
	// Counters too hot for the SDK's per-call cost, exported as
	// observable counters: by direction (in, out), and by kind.
	bytes    [2]atomic.Int64
	messages [2][4]atomic.Int64
}

// dirIndex maps a direction label to its index in liveState arrays.
func dirIndex(direction string) int {
	if direction == DirectionOut {
		return 1
	}
	return 0
}

// kindNames are the kind label values of message kinds.
var kindNames = [4]string{kindInvalid: "invalid", kindRequest: "request", kindNotification: "notification", kindResponse: "response"}

func (s *liveState) setAvailable(up bool, at time.Time) {
	if up {
		s.available.Store(1)
		s.lastSuccess.Store(at.UnixNano())
		return
	}
	s.available.Store(0)
}

func newInstruments(m metric.Meter) (instruments, error) {
	var errs []error
	counter := func(name, desc string, unit string) metric.Int64Counter {
		opts := []metric.Int64CounterOption{metric.WithDescription(desc)}
		if unit != "" {
			opts = append(opts, metric.WithUnit(unit))
		}
		c, err := m.Int64Counter(name, opts...)
		errs = append(errs, err)
		return c
	}
	histogram := func(name, desc string) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithDescription(desc), metric.WithUnit("s"),
			metric.WithExplicitBucketBoundaries(durationBuckets...))
		errs = append(errs, err)
		return h
	}
	in := instruments{
		requests:        counter(MetricRequests, "Completed JSON-RPC requests by method and status.", ""),
		duration:        histogram(MetricRequestDuration, "Time from the request's arrival at the proxy to its answer, in seconds (allow-listed methods only)."),
		protocolErrors:  counter(MetricProtocolErrors, "Failed requests by method and error code (JSON-RPC code, http_NNN, timeout, upstream_unreachable, no_response).", ""),
		toolCalls:       counter(MetricToolCalls, "Completed tools/call requests by tool, operation and status.", ""),
		toolDuration:    histogram(MetricToolDuration, "Duration of tools/call requests by tool, operation and status, in seconds (advertised tools only)."),
		toolsListed:     counter(MetricToolsListed, "Completed tools/list requests.", ""),
		resourcesListed: counter(MetricResourcesListed, "Completed resources/list requests.", ""),
		resourceReads:   counter(MetricResourceReads, "Completed resources/read requests by URI scheme and status.", ""),
		promptsListed:   counter(MetricPromptsListed, "Completed prompts/list requests.", ""),
		promptGets:      counter(MetricPromptGets, "Completed prompts/get requests by prompt and status.", ""),
		notifications:   counter(MetricNotifications, "JSON-RPC notifications by method and direction (in: client to server).", ""),
		sseEvents:       counter(MetricSSEEvents, "SSE events relayed from the upstream, by stream (post, get).", ""),
		upstreamHTTP:    counter(MetricUpstreamHTTP, "HTTP responses received from the upstream by status code.", ""),
		checkDuration:   histogram(MetricCheckDuration, "Duration of upstream availability probes by result, in seconds."),
		overhead:        histogram(MetricOverhead, "Time the proxy adds to a JSON answer: total minus the upstream exchange, in seconds."),
		rejected:        counter(MetricRejected, "Requests the proxy refused itself, by reason.", ""),
	}
	return in, errors.Join(errs...)
}

// registerGauges registers the observable gauges that read state.
func registerGauges(m metric.Meter, s *liveState, server, version string) error {
	var errs []error
	gauge := func(name, desc string) metric.Int64ObservableGauge {
		g, err := m.Int64ObservableGauge(name, metric.WithDescription(desc))
		errs = append(errs, err)
		return g
	}
	inflight := gauge(MetricInflight, "Requests received and not yet answered.")
	conns := gauge(MetricActiveConns, "Deprecated alias of mcp_inflight_requests, kept for the original dashboards and health checks.")
	sessions := gauge(MetricSessionsActive, "MCP sessions established through the proxy and not terminated or idle.")
	streams := gauge(MetricSSEStreams, "SSE streams being relayed, by stream (post, get).")
	up := gauge(MetricUpstreamUp, "1 if the last upstream probe succeeded, else 0.")
	build := gauge(MetricBuildInfo, "Always 1; labels carry the sidecar version and Go version.")
	last, err := m.Float64ObservableGauge(MetricUpstreamLastOK, metric.WithUnit("s"),
		metric.WithDescription("Unix time of the last successful upstream probe; 0 if none yet."))
	errs = append(errs, err)
	bytesCounter, err := m.Int64ObservableCounter(MetricMessageBytes, metric.WithUnit("By"),
		metric.WithDescription("MCP message bytes as carried on the wire (HTTP bodies, stdio lines), by direction."))
	errs = append(errs, err)
	msgCounter, err := m.Int64ObservableCounter(MetricMessages,
		metric.WithDescription("JSON-RPC messages by kind (request, notification, response, invalid) and direction."))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return err
	}
	srv := attribute.String("server_name", server)
	plain := metric.WithAttributeSet(attribute.NewSet(srv))
	post := metric.WithAttributeSet(attribute.NewSet(srv, attribute.String("stream", "post")))
	get := metric.WithAttributeSet(attribute.NewSet(srv, attribute.String("stream", "get")))
	info := metric.WithAttributeSet(attribute.NewSet(srv, attribute.String("version", version),
		attribute.String("go_version", runtime.Version())))
	var dirOpts [2]metric.ObserveOption
	var msgOpts [2][4]metric.ObserveOption
	for d, dir := range []string{DirectionIn, DirectionOut} {
		dirOpts[d] = metric.WithAttributeSet(attribute.NewSet(srv, attribute.String("direction", dir)))
		for k, name := range kindNames {
			msgOpts[d][k] = metric.WithAttributeSet(attribute.NewSet(srv, attribute.String("direction", dir), attribute.String("kind", name)))
		}
	}
	_, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		for d := range 2 {
			o.ObserveInt64(bytesCounter, s.bytes[d].Load(), dirOpts[d])
			for k := range kindNames {
				if n := s.messages[d][k].Load(); n > 0 {
					o.ObserveInt64(msgCounter, n, msgOpts[d][k])
				}
			}
		}
		n := s.inflight.Load()
		o.ObserveInt64(inflight, n, plain)
		o.ObserveInt64(conns, n, plain)
		o.ObserveInt64(sessions, s.sessions.Load(), plain)
		o.ObserveInt64(streams, s.ssePost.Load(), post)
		o.ObserveInt64(streams, s.sseGet.Load(), get)
		o.ObserveInt64(up, s.available.Load(), plain)
		o.ObserveFloat64(last, float64(s.lastSuccess.Load())/1e9, plain)
		o.ObserveInt64(build, 1, info)
		return nil
	}, inflight, conns, sessions, streams, up, last, build, bytesCounter, msgCounter)
	return err
}
