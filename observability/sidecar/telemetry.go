package sidecar

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// telemetry is what a Proxy and a StdioProxy share: the instruments and
// their provider, the learned label vocabulary, the tracer and the logger.
type telemetry struct {
	server     string
	inst       instruments
	legacy     *legacyInstruments // nil unless Config.LegacyMetrics
	attrs      *attrCache
	vocab      *vocabulary
	state      liveState
	log        *slog.Logger
	tracer     trace.Tracer // nil when spans would go nowhere
	propagator propagation.TextMapPropagator

	// The stdio session: when its initialize was answered (unix
	// nanoseconds, 0 before), and its protocol version.
	pipeStart   atomic.Int64
	pipeVersion atomic.Pointer[string]

	registry *prometheus.Registry
	metrics  http.Handler
	prom     *otelprom.Exporter
	meters   *sdkmetric.MeterProvider
}

// version is the sidecar's module version, or "devel".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// Resource is the OpenTelemetry resource of a sidecar named serviceName:
// service.name and service.version. The proxy's meters carry it; give it to
// the TracerProvider too.
func Resource(serviceName string) *resource.Resource {
	return resource.NewSchemaless(
		semconv.ServiceNameKey.String(serviceName),
		semconv.ServiceVersionKey.String(version()),
	)
}

// newTelemetry sets up the instruments of a proxy whose upstream is u (nil
// for a stdio server).
func newTelemetry(cfg Config, u *url.URL) (*telemetry, error) {
	t := &telemetry{
		server:     cfg.ServerName,
		attrs:      &attrCache{server: cfg.ServerName, transport: transportPipe},
		vocab:      newVocabulary(),
		log:        cfg.Logger,
		propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
		registry:   prometheus.NewRegistry(),
	}
	if u != nil {
		t.attrs.transport = transportTCP
		t.attrs.upstreamHost = u.Hostname()
		t.attrs.upstreamPort = upstreamPort(u)
	}
	t.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// OpenMetrics on request carries the histograms' exemplars.
	t.metrics = promhttp.HandlerFor(t.registry, promhttp.HandlerOpts{EnableOpenMetrics: true})
	var err error
	t.prom, err = otelprom.New(otelprom.WithRegisterer(t.registry), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, err
	}
	opts := []sdkmetric.Option{sdkmetric.WithResource(Resource(cfg.ServiceName)), sdkmetric.WithReader(t.prom)}
	for _, r := range cfg.MetricReaders {
		opts = append(opts, sdkmetric.WithReader(r))
	}
	t.meters = sdkmetric.NewMeterProvider(opts...)
	meter := t.meters.Meter(meterName, metric.WithInstrumentationVersion(version()))
	if cfg.LegacyMetrics {
		if t.legacy, err = newLegacyInstruments(meter); err != nil {
			return nil, err
		}
		if err := registerGauges(meter, &t.state, cfg.ServerName, version(), legacyGauges); err != nil {
			return nil, err
		}
	}
	if t.inst, err = newInstruments(meter, t.legacy); err != nil {
		return nil, err
	}
	if err := registerGauges(meter, &t.state, cfg.ServerName, version(), currentGauges); err != nil {
		return nil, err
	}
	// Counters whose label sets are fixed start at 0, so that rate() has
	// series from the first scrape.
	for _, s := range []string{streamPost, streamGet} {
		t.inst.sseEvents.Add(context.Background(), 0, t.attrs.get(attrKey{fam: famStream, a: s}).add...)
	}
	// Spans are made only when they go somewhere: a caller's provider.
	// Otherwise the client's trace context passes through untouched.
	if cfg.TracerProvider != nil {
		t.tracer = cfg.TracerProvider.Tracer(meterName, trace.WithInstrumentationVersion(version()))
	}
	return t, nil
}

// upstreamPort is u's port, or its scheme's default.
func upstreamPort(u *url.URL) int {
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return p
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}

// metricsHandler serves the Prometheus text format, or OpenMetrics (with
// exemplars) when asked for it.
func (t *telemetry) metricsHandler() http.Handler { return t.metrics }

// shutdown ends the stdio session, if one was open, then flushes and stops
// the meter provider and its readers (the caller's too). The
// TracerProvider is the caller's to shut down.
func (t *telemetry) shutdown(ctx context.Context) error {
	t.endPipeSession()
	return t.meters.Shutdown(ctx)
}

// endPipeSession records the stdio session's duration once, if the client
// initialized one.
func (t *telemetry) endPipeSession() {
	start := t.pipeStart.Swap(-1)
	if start <= 0 {
		return
	}
	version := ""
	if v := t.pipeVersion.Load(); v != nil {
		version = *v
	}
	t.sessionEnded(time.Since(time.Unix(0, start)), "", version)
}

// Version is the sidecar's version: the module version it was built from,
// or "devel".
func Version() string { return version() }
