package sidecar

import (
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// TestExemplarsInOpenMetrics checks that the operation histograms carry the
// trace id of a sampled request's span as an exemplar on /metrics in the
// OpenMetrics format, and that the classic text format has none.
func TestExemplarsInOpenMetrics(t *testing.T) {
	up := startUpstream(t)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	_, px := startProxy(t, up.URL, func(c *Config) { c.TracerProvider = tp })
	rawPost(t, px.URL+sidecartest.Path, initBody, nil)
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	traceID := spans[0].SpanContext().TraceID().String()

	req, _ := http.NewRequest(http.MethodGet, px.URL+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0; charset=utf-8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Fatalf("Content-Type %q", ct)
	}
	for _, name := range []string{"mcp_server_operation_duration_seconds_bucket", "mcp_client_operation_duration_seconds_bucket"} {
		found := false
		for _, line := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(line, name+"{") && strings.Contains(line, `# {`) && strings.Contains(line, `trace_id="`+traceID+`"`) {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s line with an exemplar of trace %s", name, traceID)
		}
	}
	if strings.Contains(scrape(t, px.URL), "trace_id") {
		t.Error("the classic text format carries exemplars")
	}
}

// TestNoOTLPInTbbench checks that the library links no exporter: tbbench,
// which serves the sidecar's /metrics, carries neither OTLP nor gRPC, and
// nor does the library; mcp-sidecar has OTLP.
func TestNoOTLPInTbbench(t *testing.T) {
	deps := func(pkg string) string {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		return string(out)
	}
	const mod = "github.com/thoughtbox-bench/tbbench/"
	for _, pkg := range []string{mod + "cmd/tbbench", mod + "observability/sidecar"} {
		for _, line := range strings.Split(deps(pkg), "\n") {
			// github.com/prometheus/otlptranslator (metric name translation
			// of the Prometheus exporter) is no exporter.
			if strings.HasPrefix(line, "go.opentelemetry.io/otel/exporters/otlp") || strings.HasPrefix(line, "go.opentelemetry.io/proto/otlp") ||
				strings.HasPrefix(line, "google.golang.org/grpc") {
				t.Errorf("%s links %s", pkg, line)
			}
		}
	}
	if !strings.Contains(deps(mod+"cmd/mcp-sidecar"), "go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp") {
		t.Error("mcp-sidecar does not link the OTLP metric exporter")
	}
}
