package sidecar

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// TestOneSpanPerRequestPropagated checks that each JSON-RPC request gets a
// span, child of the client's trace, and that the upstream receives the
// span's W3C trace context.
func TestOneSpanPerRequestPropagated(t *testing.T) {
	var mu sync.Mutex
	var upstreamParents []string
	inner := sidecartest.New().Handler()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			mu.Lock()
			upstreamParents = append(upstreamParents, r.Header.Get("Traceparent"))
			mu.Unlock()
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	_, px := startProxy(t, up.URL, func(c *Config) { c.TracerProvider = tp })

	// The client's own span.
	clientTP := sdktrace.NewTracerProvider()
	ctx, parent := clientTP.Tracer("client").Start(context.Background(), "client op")
	h := http.Header{}
	propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(h))
	resp, _ := rawPost(t, px.URL+sidecartest.Path, initBody, map[string]string{"Traceparent": h.Get("Traceparent")})
	sid := resp.Header.Get("Mcp-Session-Id")
	hdr := withSessionID(sid)
	hdr["Traceparent"] = h.Get("Traceparent")
	rawPost(t, px.URL+sidecartest.Path, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	rawPost(t, px.URL+sidecartest.Path, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, hdr)
	rawPost(t, px.URL+sidecartest.Path, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"start_new"}}}`, hdr)

	spans := rec.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3 (one per request, none for the notification)", len(spans))
	}
	wantNames := []string{"initialize", "tools/list", "tools/call thoughtbox_gateway"}
	for i, s := range spans {
		if s.Name() != wantNames[i] {
			t.Errorf("span %d named %q, want %q", i, s.Name(), wantNames[i])
		}
		if s.Parent().SpanID() != parent.SpanContext().SpanID() || s.SpanContext().TraceID() != parent.SpanContext().TraceID() {
			t.Errorf("span %q is not a child of the client's span", s.Name())
		}
		if s.SpanKind() != trace.SpanKindServer {
			t.Errorf("span %q kind %v", s.Name(), s.SpanKind())
		}
	}
	attrs := map[string]string{}
	for _, kv := range spans[2].Attributes() {
		attrs[string(kv.Key)] = kv.Value.Emit()
	}
	for k, v := range map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "thoughtbox_gateway",
		"thoughtbox.operation": "start_new", "gen_ai.operation.name": "execute_tool", "network.transport": "tcp",
		"error.type": ""} {
		if attrs[k] != v {
			t.Errorf("attribute %s = %q, want %q (all %v)", k, attrs[k], v, attrs)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// Requests carry their span's context; the notification passes the
	// client's through.
	want := []string{spans[0].SpanContext().SpanID().String(), parent.SpanContext().SpanID().String(),
		spans[1].SpanContext().SpanID().String(), spans[2].SpanContext().SpanID().String()}
	for i, tp := range upstreamParents {
		if !strings.Contains(tp, want[i]) || !strings.Contains(tp, parent.SpanContext().TraceID().String()) {
			t.Errorf("upstream request %d traceparent %q, want span %s", i, tp, want[i])
		}
	}
}

// TestNoSpansWithoutExporter checks that the client's trace context passes
// through untouched when spans would go nowhere.
func TestNoSpansWithoutExporter(t *testing.T) {
	var got string
	up := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("Traceparent")
		answerJSON(200, `{"jsonrpc":"2.0","id":1,"result":{}}`)(w, r)
	})
	_, px := startProxy(t, up.URL, nil)
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	rawPost(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, map[string]string{"Traceparent": tp})
	if got != tp {
		t.Errorf("upstream traceparent %q, want the client's %q", got, tp)
	}
}
