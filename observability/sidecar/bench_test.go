package sidecar

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// benchToolsList is a tools/list answer with one gateway tool.
const benchToolsList = `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"thoughtbox_gateway","inputSchema":{"type":"object","properties":{"operation":{"type":"string","enum":["start_new","cipher","thought","get_state"]}}}}]}}`

// benchUpstream answers tools/list with benchToolsList and anything else
// with a small tools/call result, echoing the request's id, without
// decoding JSON: the benchmarks measure the proxy, not a server.
var benchUpstream = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	if strings.Contains(string(body), `"tools/list"`) {
		_, _ = io.WriteString(w, benchToolsList)
		return
	}
	id := string(member(body, "id"))
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"{\"thoughtNumber\":1}"}]}}`)
})

// benchProxy returns an in-process proxy in front of benchUpstream whose
// vocabulary knows the gateway tool.
func benchProxy(b *testing.B, mod func(*Config)) *Proxy {
	b.Helper()
	cfg := Config{Upstream: "http://upstream.test/mcp", ServerName: "bench", ProbeInterval: -1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Transport: HandlerTransport(benchUpstream)}
	if mod != nil {
		mod(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.Close() })
	benchPost(b, p.Handler(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	return p
}

// benchPost sends one POST through h and checks the answer.
func benchPost(b *testing.B, h http.Handler, body string) {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("status %d: %s", w.Code, w.Body)
	}
}

// BenchmarkProxyToolCall measures the proxy's own cost per gateway
// tools/call (parsing, metrics, forwarding) in front of an in-process
// upstream that answers at once, with parallel clients.
func BenchmarkProxyToolCall(b *testing.B) {
	h := benchProxy(b, nil).Handler()
	const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"thought","args":{"thought":"x","nextThoughtNeeded":true}}}}`
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			benchPost(b, h, body)
		}
	})
}

// BenchmarkTelemetryToolCall measures what the proxy records per gateway
// tools/call: classifying the request, and recording its answer.
func BenchmarkTelemetryToolCall(b *testing.B) {
	t := benchProxy(b, nil).tel
	req := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"thought"}}}`)
	ans := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"ok"}]}}`)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m := parseMessage(req)
			_, c := t.begin(context.Background(), &m, time.Now())
			a := parseMessage(ans)
			t.answer(c, &a)
		}
	})
}

// BenchmarkParseLargeAnswer measures the proxy's reading of a large
// answer: a tools/call result with a JSON text (its quotes escaped) and a
// markdown resource, as the gateway's first thought of a session answers.
//
//	go test -run '^$' -bench ParseLargeAnswer ./observability/sidecar
func BenchmarkParseLargeAnswer(b *testing.B) {
	text, _ := json.Marshal(strings.Repeat(`{"thoughtNumber": 1, "sessionId": "0b4f3c6e", "note": "a \"quoted\" word"}`+"\n", 40))
	md, _ := json.Marshal(strings.Repeat("## A heading\n\nSome *markdown* text, with `code` and a list:\n- one\n- two\n\n", 150))
	ans := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":` + string(text) +
		`},{"type":"resource","resource":{"uri":"thoughtbox://cookbook","mimeType":"text/markdown","text":` + string(md) + `}}],"isError":false}}`)
	b.SetBytes(int64(len(ans)))
	b.ReportAllocs()
	for b.Loop() {
		m := parseMessage(ans)
		if m.kind != kindResponse || isToolError(m.result) {
			b.Fatalf("parsed %+v", m)
		}
	}
}
