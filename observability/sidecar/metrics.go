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

// durationBuckets are the boundaries, in seconds, of the sidecar's own
// duration histograms (probes, and the legacy request histograms): 0.5 ms
// to 60 s.
var durationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// overheadBuckets are the boundaries of the proxy overhead histogram: 10 µs
// to 100 ms, where the proxy's own cost lies.
var overheadBuckets = []float64{0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1}

// Names of the sidecar's own instruments, those the semantic conventions do
// not define (OpenTelemetry names; the Prometheus exposition turns
// mcp.sidecar.active_requests into mcp_sidecar_active_requests, counters
// get _total and units a suffix).
const (
	MetricNotifications  = "mcp.sidecar.notifications"
	MetricMessages       = "mcp.sidecar.messages"
	MetricMessageBytes   = "mcp.sidecar.io"
	MetricSSEEvents      = "mcp.sidecar.sse.events"
	MetricUpstreamHTTP   = "mcp.sidecar.upstream.responses"
	MetricCheckDuration  = "mcp.sidecar.upstream.check.duration"
	MetricOverhead       = "mcp.sidecar.overhead"
	MetricRejected       = "mcp.sidecar.rejected"
	MetricInflight       = "mcp.sidecar.active_requests"
	MetricSessionsActive = "mcp.sidecar.active_sessions"
	MetricSSEStreams     = "mcp.sidecar.sse.active_streams"
	MetricUpstreamUp     = "mcp.sidecar.upstream.available"
	MetricUpstreamLastOK = "mcp.sidecar.upstream.last_success"
	MetricBuildInfo      = "mcp.sidecar.build.info"
)

// counter is a counter under its current name and, with legacy metrics on,
// under its legacy name too; both take the same attributes.
type counter struct{ cur, legacy metric.Int64Counter }

// Add adds n to both.
func (c counter) Add(ctx context.Context, n int64, opts ...metric.AddOption) {
	c.cur.Add(ctx, n, opts...)
	if c.legacy != nil {
		c.legacy.Add(ctx, n, opts...)
	}
}

// histogram is a histogram under its current name and, with legacy metrics
// on, under its legacy name too.
type histogram struct{ cur, legacy metric.Float64Histogram }

// Record records v in both.
func (h histogram) Record(ctx context.Context, v float64, opts ...metric.RecordOption) {
	h.cur.Record(ctx, v, opts...)
	if h.legacy != nil {
		h.legacy.Record(ctx, v, opts...)
	}
}

// instruments are the synchronous instruments.
type instruments struct {
	// The semantic conventions' histograms: the proxy as the server its
	// clients talk to, and as the client of the upstream.
	serverOp, clientOp           metric.Float64Histogram
	serverSession, clientSession metric.Float64Histogram

	notifications metric.Int64Counter
	sseEvents     counter
	upstreamHTTP  counter
	checkDuration histogram
	overhead      histogram
	rejected      counter
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

// newInstruments creates the instruments; legacy, when not nil, receives
// the legacy names of the instruments both generations share.
func newInstruments(m metric.Meter, legacy *legacyInstruments) (instruments, error) {
	var errs []error
	counterOf := func(name, desc, unit string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithDescription(desc), metric.WithUnit(unit))
		errs = append(errs, err)
		return c
	}
	histogramOf := func(name, desc string, buckets []float64) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithDescription(desc), metric.WithUnit("s"),
			metric.WithExplicitBucketBoundaries(buckets...))
		errs = append(errs, err)
		return h
	}
	in := instruments{
		notifications: counterOf(MetricNotifications, "JSON-RPC notifications by method and direction (in: client to server).", "{notification}"),
		sseEvents:     counter{cur: counterOf(MetricSSEEvents, "SSE events relayed from the upstream, by stream (post, get).", "{event}")},
		upstreamHTTP:  counter{cur: counterOf(MetricUpstreamHTTP, "HTTP responses received from the upstream by status code.", "{response}")},
		checkDuration: histogram{cur: histogramOf(MetricCheckDuration, "Duration of upstream availability probes by result.", durationBuckets)},
		overhead:      histogram{cur: histogramOf(MetricOverhead, "Time the proxy adds to a JSON answer: total minus the upstream exchange.", overheadBuckets)},
		rejected:      counter{cur: counterOf(MetricRejected, "Requests the proxy refused itself, by reason.", "{request}")},
	}
	errs = append(errs, newSemconvInstruments(m, &in))
	if legacy != nil {
		in.sseEvents.legacy = legacy.sseEvents
		in.upstreamHTTP.legacy = legacy.upstreamHTTP
		in.checkDuration.legacy = legacy.checkDuration
		in.overhead.legacy = legacy.overhead
		in.rejected.legacy = legacy.rejected
	}
	return in, errors.Join(errs...)
}

// gaugeNames names the observable instruments of one generation.
type gaugeNames struct {
	inflight, activeConns, sessions, streams, up, lastOK, build, bytes, messages string
	bytesUnit                                                                    string
}

// currentGauges are today's names; legacyGauges those of the original
// sidecar (activeConns is its deprecated alias of inflight).
var (
	currentGauges = gaugeNames{inflight: MetricInflight, sessions: MetricSessionsActive, streams: MetricSSEStreams,
		up: MetricUpstreamUp, lastOK: MetricUpstreamLastOK, build: MetricBuildInfo, bytes: MetricMessageBytes,
		messages: MetricMessages, bytesUnit: "By"}
	legacyGauges = gaugeNames{inflight: legacyInflight, activeConns: legacyActiveConns, sessions: legacySessionsActive,
		streams: legacySSEStreams, up: legacyUpstreamUp, lastOK: legacyUpstreamLastOK, build: legacyBuildInfo,
		bytes: legacyMessageBytes, messages: legacyMessages, bytesUnit: "By"}
)

// registerGauges registers the observable instruments named by n, which
// read state.
func registerGauges(m metric.Meter, s *liveState, server, version string, n gaugeNames) error {
	var errs []error
	gauge := func(name, desc, unit string) metric.Int64ObservableGauge {
		g, err := m.Int64ObservableGauge(name, metric.WithDescription(desc), metric.WithUnit(unit))
		errs = append(errs, err)
		return g
	}
	inflight := gauge(n.inflight, "Requests received and not yet answered.", "{request}")
	var conns metric.Int64ObservableGauge
	if n.activeConns != "" {
		conns = gauge(n.activeConns, "Deprecated alias of mcp_inflight_requests, kept for the original dashboards and health checks.", "")
	}
	sessions := gauge(n.sessions, "MCP sessions established through the proxy and not terminated or idle.", "{session}")
	streams := gauge(n.streams, "SSE streams being relayed, by stream (post, get).", "{stream}")
	up := gauge(n.up, "1 if the last upstream probe succeeded, else 0.", "")
	build := gauge(n.build, "Always 1; labels carry the sidecar version and Go version.", "")
	last, err := m.Float64ObservableGauge(n.lastOK, metric.WithUnit("s"),
		metric.WithDescription("Unix time of the last successful upstream probe; 0 if none yet."))
	errs = append(errs, err)
	bytesCounter, err := m.Int64ObservableCounter(n.bytes, metric.WithUnit(n.bytesUnit),
		metric.WithDescription("MCP message bytes as carried on the wire (HTTP bodies, stdio lines), by direction."))
	errs = append(errs, err)
	msgCounter, err := m.Int64ObservableCounter(n.messages, metric.WithUnit("{message}"),
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
	observed := []metric.Observable{inflight, sessions, streams, up, last, build, bytesCounter, msgCounter}
	if conns != nil {
		observed = append(observed, conns)
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
		if conns != nil {
			o.ObserveInt64(conns, n, plain)
		}
		o.ObserveInt64(sessions, s.sessions.Load(), plain)
		o.ObserveInt64(streams, s.ssePost.Load(), post)
		o.ObserveInt64(streams, s.sseGet.Load(), get)
		o.ObserveInt64(up, s.available.Load(), plain)
		o.ObserveFloat64(last, float64(s.lastSuccess.Load())/1e9, plain)
		o.ObserveInt64(build, 1, info)
		return nil
	}, observed...)
	return err
}
