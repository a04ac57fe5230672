//go:build !race

// Built without the race detector only: the OTLP exporters bring gRPC and
// protobuf into the test (120 packages that only this test and
// cmd/mcp-sidecar's need), which the race-detected build would compile
// again. make test runs it beside the race-detected run (the Makefile's
// PLAIN_ONLY); the proxy's telemetry, spans included, is race-tested in
// this package's other tests.

package sidecar

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// otlpSink is a fake OTLP/HTTP receiver that keeps every payload.
type otlpSink struct {
	mu       sync.Mutex
	payloads map[string][][]byte
}

func (s *otlpSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	if s.payloads == nil {
		s.payloads = map[string][][]byte{}
	}
	s.payloads[r.URL.Path] = append(s.payloads[r.URL.Path], b)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

func (s *otlpSink) all(path string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, p := range s.payloads[path] {
		b.Write(p)
	}
	return b.String()
}

func canary(t *testing.T, what string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "canary" + what + hex.EncodeToString(b)
}

// TestNoRequestContentInTelemetry drives the reference server through the
// proxy with unique canary strings in every place a client controls
// (thought text, tool arguments, project name, tool and prompt names, URIs,
// client info, method names, ids, headers, the query string) and checks
// that none reaches /metrics, Counts, a log line (at debug level) or an
// exported span or metric.
func TestNoRequestContentInTelemetry(t *testing.T) {
	var logs syncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	sink := &otlpSink{}
	collector := httptest.NewServer(sink)
	defer collector.Close()
	up := startReference(t)
	ctx := context.Background()
	mexp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(collector.URL+"/v1/metrics"))
	if err != nil {
		t.Fatal(err)
	}
	texp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(collector.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(Resource("mcp-sidecar")), sdktrace.WithBatcher(texp))
	cfg := Config{
		Upstream: up.URL + "/mcp", ServerName: "test", Logger: logger, ProbeInterval: time.Hour,
		MetricReaders:  []sdkmetric.Reader{sdkmetric.NewPeriodicReader(mexp, sdkmetric.WithInterval(50*time.Millisecond))},
		TracerProvider: tp,
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	px := httptest.NewServer(p.Handler())
	defer px.Close()
	waitFor(t, "probe", func() bool { return p.tel.state.available.Load() == 1 })

	c := map[string]string{}
	for _, k := range []string{"thought", "argkey", "argval", "tool", "op", "uri", "scheme", "prompt", "promptarg",
		"clientname", "clientver", "method", "notif", "id", "auth", "header", "query", "nestedop", "project"} {
		c[k] = canary(t, k)
	}
	// An mcp-go client with canary client info.
	mc, err := client.NewStreamableHttpClient(px.URL + sidecartest.Path + "?q=" + c["query"])
	if err != nil {
		t.Fatal(err)
	}
	mc = client.NewClient(mc.GetTransport(), client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	ctx = t.Context()
	if err := mc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: c["clientname"], Version: c["clientver"]}
	if _, err := mc.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	for _, step := range []map[string]any{
		{"operation": "start_new", "args": map[string]any{"newWork": map[string]any{"project": c["project"]}}},
		{"operation": "cipher"},
		{"operation": "thought", "args": map[string]any{"thought": c["thought"], "nextThoughtNeeded": true}},
	} {
		if res := callTool(t, mc, sidecartest.GatewayTool, step); res.IsError {
			t.Fatalf("gateway %v: %v", step["operation"], res.Content)
		}
	}
	callTool(t, mc, sidecartest.GatewayTool, map[string]any{"operation": "thought",
		"args": map[string]any{c["argkey"]: c["argval"], "operation": c["nestedop"], "thought": c["thought"]}})
	callTool(t, mc, sidecartest.GatewayTool, map[string]any{"operation": c["op"]})
	if _, err := mc.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: c["tool"], Arguments: map[string]any{"operation": c["op"]}}}); err == nil {
		t.Error("unknown tool accepted")
	}
	for _, uri := range []string{"thoughtbox://thoughts/" + c["uri"], c["scheme"] + "://x/" + c["uri"]} {
		_, _ = mc.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
	}
	_, _ = mc.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: c["prompt"], Arguments: map[string]string{"name": c["promptarg"]}}})
	_, _ = mc.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "spec-designer", Arguments: map[string]string{"name": c["promptarg"]}}})
	sid := mc.GetSessionId()
	hdr := withSessionID(sid)
	hdr["Authorization"] = "Bearer " + c["auth"]
	hdr["X-Note"] = c["header"]
	url := px.URL + sidecartest.Path + "?q=" + c["query"]
	rawPost(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":%q,"params":{"x":%q}}`, c["id"], c["method"], c["thought"]), hdr)
	rawPost(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, c["notif"]), hdr)
	// A failing upstream logs: its log line must not carry the URL's query.
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	p2, err := New(Config{Upstream: deadURL + "/mcp", ServerName: "dead", Logger: logger, ProbeInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	p2.tel.state.available.Store(1)
	px2 := httptest.NewServer(p2.Handler())
	rawPost(t, px2.URL+"/mcp?q="+c["query"], `{"jsonrpc":"2.0","id":1,"method":"ping"}`, hdr)
	px2.Close()
	_ = p2.Close()

	metrics := scrape(t, px.URL)
	counts := fmt.Sprint(p.Counts())
	if err := p.Close(); err != nil { // flushes the OTLP metric exporter
		t.Fatal(err)
	}
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	sinks := map[string]string{
		"/metrics": metrics, "Counts": counts, "logs": logs.String(),
		"OTLP metrics": sink.all("/v1/metrics"), "OTLP traces": sink.all("/v1/traces"),
	}
	// Each sink must have seen the traffic, or its check proves nothing.
	for name, want := range map[string]string{"/metrics": `operation="thought"`, "Counts": "thought",
		"logs": "upstream unreachable", "OTLP metrics": "mcp.server.operation.duration", "OTLP traces": "tools/call thoughtbox_gateway"} {
		if !strings.Contains(sinks[name], want) {
			t.Errorf("%s lacks %q: the scan below would prove nothing", name, want)
		}
	}
	if !strings.Contains(logs.String(), `"msg":"mcp request"`) {
		t.Error("no debug request logs")
	}
	for name, text := range sinks {
		low := strings.ToLower(text)
		for what, v := range c {
			if strings.Contains(low, strings.ToLower(v)) {
				t.Errorf("%s leaks the %s canary", name, what)
			}
		}
	}
}
