package sidecar

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// metaUpstream records the bodies it receives and answers every request of
// a body (one or a batch) with an empty result.
type metaUpstream struct {
	mu     sync.Mutex
	bodies []string
}

func (u *metaUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.bodies = append(u.bodies, string(b))
	u.mu.Unlock()
	msgs, batch := parseBody(b)
	var out []string
	for _, m := range msgs {
		out = append(out, `{"jsonrpc":"2.0","id":`+jsonID(m.id)+`,"result":{}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	if batch {
		_, _ = io.WriteString(w, "["+strings.Join(out, ",")+"]")
		return
	}
	_, _ = io.WriteString(w, out[0])
}

func (u *metaUpstream) last() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.bodies[len(u.bodies)-1]
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, s)
	}
	return v
}

// TestTraceContextInMeta checks both directions of params._meta: the span
// is a child of the context in the request's _meta (the HTTP header's
// context becomes a link), and the request forwarded upstream carries the
// span's context there, with nothing else changed.
func TestTraceContextInMeta(t *testing.T) {
	um := &metaUpstream{}
	up := fakeUpstream(t, um.ServeHTTP)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	_, px := startProxy(t, up.URL, func(c *Config) { c.TracerProvider = tp })

	const metaTrace, metaSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	const hdrTrace, hdrSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	sent := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":"c"}]},` +
		`"_meta":{"progressToken":7,"traceparent":"00-` + metaTrace + `-` + metaSpan + `-01","tracestate":"rojo=00f067aa0ba902b7"}}}`
	rawPost(t, px.URL+"/mcp", sent, map[string]string{"Traceparent": "00-" + hdrTrace + "-" + hdrSpan + "-01"})

	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	s := spans[0]
	if s.Parent().TraceID().String() != metaTrace || s.Parent().SpanID().String() != metaSpan {
		t.Errorf("span parent %v, want the _meta context", s.Parent())
	}
	if l := s.Links(); len(l) != 1 || l[0].SpanContext.TraceID().String() != hdrTrace {
		t.Errorf("links %v, want the HTTP header's context", l)
	}
	got := decode(t, um.last()).(map[string]any)
	meta := got["params"].(map[string]any)["_meta"].(map[string]any)
	wantTP := "00-" + metaTrace + "-" + s.SpanContext().SpanID().String() + "-01"
	if meta["traceparent"] != wantTP || meta["tracestate"] != "rojo=00f067aa0ba902b7" {
		t.Errorf("upstream _meta %v, want traceparent %s and the tracestate", meta, wantTP)
	}
	// Apart from the traceparent, the message is the client's.
	want := decode(t, sent).(map[string]any)
	want["params"].(map[string]any)["_meta"].(map[string]any)["traceparent"] = wantTP
	if !reflect.DeepEqual(got, want) {
		t.Errorf("upstream got %v\nwant %v", got, want)
	}

	// A batch: each request gets its own span's context; a request without
	// params or without _meta gets them.
	rawPost(t, px.URL+"/mcp", `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},`+
		`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}},{"jsonrpc":"2.0","id":4,"method":"prompts/list","params":{"cursor":"c"}}]`, nil)
	spans = rec.Ended()[1:]
	batch := decode(t, um.last()).([]any)
	if len(spans) != 3 || len(batch) != 4 {
		t.Fatalf("%d spans, %d messages upstream", len(spans), len(batch))
	}
	for i, j := range []int{0, 2, 3} {
		m := batch[j].(map[string]any)
		tp := m["params"].(map[string]any)["_meta"].(map[string]any)["traceparent"]
		if want := "00-" + spans[i].SpanContext().TraceID().String() + "-" + spans[i].SpanContext().SpanID().String() + "-01"; tp != want {
			t.Errorf("message %d traceparent %v, want %s", j, tp, want)
		}
	}
	if _, has := batch[1].(map[string]any)["params"]; has {
		t.Error("the notification got params")
	}
	if c := batch[3].(map[string]any)["params"].(map[string]any)["cursor"]; c != "c" {
		t.Errorf("cursor %v", c)
	}
}

// TestMetaEdits checks the edits of params._meta on raw messages, including
// the ones left alone.
func TestMetaEdits(t *testing.T) {
	tel := &telemetry{}
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled})
	tp := `"traceparent":"00-01000000000000000000000000000000-0200000000000000-01"`
	for in, want := range map[string]string{
		`{"id":1,"method":"m"}`:                                        `{"params":{"_meta":{` + tp + `}},"id":1,"method":"m"}`,
		`{"id":1,"method":"m","params":{}}`:                            `{"id":1,"method":"m","params":{"_meta":{` + tp + `}}}`,
		`{"id":1,"method":"m","params":{ "_meta" : { } }}`:             `{"id":1,"method":"m","params":{ "_meta" : {` + tp + ` } }}`,
		`{"id":1,"method":"m","params":{"_meta":{"k":1}}}`:             `{"id":1,"method":"m","params":{"_meta":{` + tp + `,"k":1}}}`,
		`{"id":1,"method":"m","params":{"_meta":"text"}}`:              `{"id":1,"method":"m","params":{"_meta":"text"}}`,
		`{"id":1,"method":"m","params":[1,2]}`:                         `{"id":1,"method":"m","params":[1,2]}`,
		`{"id":1,"method":"m","params":{"_meta":{"traceparent":"x"}}}`: `{"id":1,"method":"m","params":{"_meta":{` + tp + `}}}`,
	} {
		b := []byte(in)
		m := parseMessage(b)
		got := string(applyEdits(b, tel.metaEdits(b, &m, sc)))
		if got != want {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
	}
}
