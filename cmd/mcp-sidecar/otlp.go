package main

import (
	"context"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
)

// defaultOTLPInterval is the default OTLP metric push period.
const defaultOTLPInterval = 10 * time.Second

// otlpOptions say whether and where metrics and traces are pushed over
// OTLP/HTTP. The exporters live here, in the command, so that the sidecar
// library (and tbbench, which links it) carries no OTLP or gRPC code.
type otlpOptions struct {
	on       bool
	endpoint string // base URL; empty uses OTEL_EXPORTER_OTLP_*
	interval time.Duration
}

// setup adds an OTLP metric reader and an OTLP-exporting TracerProvider to
// cfg when OTLP is on. The returned function flushes and stops the
// TracerProvider (the proxy's Close stops the metric reader).
func (o otlpOptions) setup(ctx context.Context, cfg *sidecar.Config) (func(), error) {
	if !o.on {
		return func() {}, nil
	}
	var mopts []otlpmetrichttp.Option
	var topts []otlptracehttp.Option
	if o.endpoint != "" {
		base := strings.TrimSuffix(o.endpoint, "/")
		mopts = append(mopts, otlpmetrichttp.WithEndpointURL(base+"/v1/metrics"))
		topts = append(topts, otlptracehttp.WithEndpointURL(base+"/v1/traces"))
	}
	mexp, err := otlpmetrichttp.New(ctx, mopts...)
	if err != nil {
		return nil, err
	}
	texp, err := otlptracehttp.New(ctx, topts...)
	if err != nil {
		return nil, err
	}
	cfg.MetricReaders = append(cfg.MetricReaders, sdkmetric.NewPeriodicReader(mexp, sdkmetric.WithInterval(o.interval)))
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(sidecar.Resource(serviceName(cfg))), sdktrace.WithBatcher(texp))
	cfg.TracerProvider = tp
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tp.Shutdown(sctx)
	}, nil
}

// serviceName is cfg's service.name, defaulted as the library does.
func serviceName(cfg *sidecar.Config) string {
	if cfg.ServiceName == "" {
		return sidecar.DefaultServiceName
	}
	return cfg.ServiceName
}
