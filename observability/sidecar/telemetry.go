package sidecar

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// telemetry is what a Proxy and a StdioProxy share: the instruments and
// their providers, the learned label vocabulary, the tracer and the logger.
type telemetry struct {
	server     string
	inst       instruments
	attrs      *attrCache
	vocab      *vocabulary
	state      liveState
	log        *slog.Logger
	tracer     trace.Tracer // nil when spans would go nowhere
	propagator propagation.TextMapPropagator

	registry   *prometheus.Registry
	metrics    http.Handler
	prom       *otelprom.Exporter
	meters     *sdkmetric.MeterProvider
	ownTracing *sdktrace.TracerProvider // nil when the caller supplied one
}

// version is the sidecar's module version, or "devel".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func newTelemetry(cfg Config) (*telemetry, error) {
	t := &telemetry{
		server:     cfg.ServerName,
		attrs:      &attrCache{server: cfg.ServerName},
		vocab:      newVocabulary(),
		log:        cfg.Logger,
		propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
		registry:   prometheus.NewRegistry(),
	}
	t.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	t.metrics = promhttp.HandlerFor(t.registry, promhttp.HandlerOpts{})
	res := resource.NewSchemaless(
		attribute.String("service.name", cfg.ServiceName),
		attribute.String("service.version", version()),
	)
	var err error
	t.prom, err = otelprom.New(otelprom.WithRegisterer(t.registry), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, err
	}
	opts := []sdkmetric.Option{sdkmetric.WithResource(res), sdkmetric.WithReader(t.prom)}
	if cfg.OTLP {
		exp, err := otlpmetrichttp.New(context.Background(), otlpMetricOptions(cfg.OTLPEndpoint)...)
		if err != nil {
			return nil, err
		}
		opts = append(opts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(cfg.OTLPInterval))))
	}
	t.meters = sdkmetric.NewMeterProvider(opts...)
	meter := t.meters.Meter(meterName, metric.WithInstrumentationVersion(version()))
	if t.inst, err = newInstruments(meter); err != nil {
		return nil, err
	}
	if err := registerGauges(meter, &t.state, cfg.ServerName, version()); err != nil {
		return nil, err
	}
	// Counters whose label sets are fixed start at 0, so that rate() has
	// series from the first scrape.
	for _, s := range []string{streamPost, streamGet} {
		t.inst.sseEvents.Add(context.Background(), 0, t.attrs.get(attrKey{fam: famStream, a: s}).add...)
	}

	// Spans are made only when they go somewhere: a caller's provider, or
	// OTLP. Otherwise the client's trace context passes through untouched.
	tp := cfg.TracerProvider
	if tp == nil && cfg.OTLP {
		exp, err := otlptracehttp.New(context.Background(), otlpTraceOptions(cfg.OTLPEndpoint)...)
		if err != nil {
			return nil, err
		}
		t.ownTracing = sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(exp))
		tp = t.ownTracing
	}
	if tp != nil {
		t.tracer = tp.Tracer(meterName, trace.WithInstrumentationVersion(version()))
	}
	return t, nil
}

// metricsHandler serves the Prometheus text format.
func (t *telemetry) metricsHandler() http.Handler { return t.metrics }

// shutdown flushes and stops the providers.
func (t *telemetry) shutdown(ctx context.Context) error {
	err := t.meters.Shutdown(ctx)
	if t.ownTracing != nil {
		err = errors.Join(err, t.ownTracing.Shutdown(ctx))
	}
	return err
}

func otlpMetricOptions(endpoint string) []otlpmetrichttp.Option {
	if endpoint == "" {
		return nil
	}
	return []otlpmetrichttp.Option{otlpmetrichttp.WithEndpointURL(strings.TrimSuffix(endpoint, "/") + "/v1/metrics")}
}

func otlpTraceOptions(endpoint string) []otlptracehttp.Option {
	if endpoint == "" {
		return nil
	}
	return []otlptracehttp.Option{otlptracehttp.WithEndpointURL(strings.TrimSuffix(endpoint, "/") + "/v1/traces")}
}

// Version is the sidecar's version: the module version it was built from,
// or "devel".
func Version() string { return version() }
