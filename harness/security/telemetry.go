package security

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
)

// lockedBuffer is a log sink safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// inProcess is a target whose server is an http.Handler of this process.
type inProcess interface{ Handler() http.Handler }

// sidecarRun is a sidecar of this package's own in front of the target,
// with its logs (at debug level) and spans kept.
type sidecarRun struct {
	proxy *sidecar.Proxy
	lb    *target.Loopback
	url   string
	logs  *lockedBuffer
	spans *tracetest.SpanRecorder
	conn  *target.Conn
}

func startSidecar(ctx context.Context, e *env) (*sidecarRun, error) {
	s := &sidecarRun{logs: &lockedBuffer{}, spans: tracetest.NewSpanRecorder()}
	cfg := sidecar.Config{Upstream: e.tg.HTTPBase(), ServerName: "security", ProbeInterval: -1,
		UpstreamIdleTimeout: target.HTTPIdleTimeout(),
		Logger:              slog.New(slog.NewJSONHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		TracerProvider:      sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(s.spans))}
	if ip, ok := target.As[inProcess](e.tg); ok {
		cfg.Transport = sidecar.HandlerTransport(ip.Handler())
	}
	p, err := sidecar.New(cfg)
	if err != nil {
		return nil, err
	}
	lb, err := target.ServeLoopback(p.Handler())
	if err != nil {
		p.Close()
		return nil, err
	}
	u, _ := url.Parse(e.tg.HTTPBase())
	s.proxy, s.lb, s.url = p, lb, lb.Base+u.Path
	front, err := target.NewURL(ctx, s.url, target.URLOptions{})
	if err != nil {
		s.close()
		return nil, err
	}
	if s.conn, err = target.Connect(ctx, front, e.rec, target.ConnOptions{}); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *sidecarRun) close() {
	if s.conn != nil {
		s.conn.Close()
	}
	s.lb.Close(nil)
	s.proxy.Close()
}

// metrics returns the sidecar's Prometheus exposition.
func (s *sidecarRun) metrics(ctx context.Context) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", s.lb.Base+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("/metrics answered HTTP %d", resp.StatusCode)
	}
	return string(b), err
}

// spanText flattens every ended span: names, attributes, events, status.
func (s *sidecarRun) spanText() string {
	var b strings.Builder
	for _, sp := range s.spans.Ended() {
		fmt.Fprintf(&b, "%s %s\n", sp.Name(), sp.Status().Description)
		for _, a := range sp.Attributes() {
			fmt.Fprintf(&b, "%s=%s\n", a.Key, a.Value.Emit())
		}
		for _, ev := range sp.Events() {
			fmt.Fprintf(&b, "%s\n", ev.Name)
			for _, a := range ev.Attributes {
				fmt.Fprintf(&b, "%s=%s\n", a.Key, a.Value.Emit())
			}
		}
	}
	return b.String()
}

// post sends a raw JSON-RPC body through the sidecar on its session.
func (s *sidecarRun) post(ctx context.Context, e *env, body string, header map[string]string) {
	h := map[string]string{mcp.HeaderSessionID: s.conn.SessionID()}
	for k, v := range header {
		h[k] = v
	}
	_, _ = target.RawHTTP(ctx, e.rec, s.url, "POST", "", h, body)
}

// canaries sends unique strings in every place a client controls through a
// sidecar and looks for them in its metrics, logs and spans.
func canaries(ctx context.Context, e *env) verdict {
	if e.tg.HTTPBase() == "" {
		return notApplicable("the sidecar's HTTP proxy is checked against HTTP targets; the target speaks stdio")
	}
	s, err := startSidecar(ctx, e)
	if err != nil {
		return fail("starting a sidecar in front of the target: " + err.Error())
	}
	defer s.close()
	mark := "cnry" + e.nonce
	c := func(what string) string { return mark + what }
	gw := func(args string) {
		s.post(ctx, e, `{"jsonrpc":"2.0","id":"`+c("id")+`","method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":`+args+`}}`, nil)
	}
	gw(`{"operation":"start_new","args":{"newWork":{"project":"` + c("project") + `","task":"` + c("task") + `"}}}`)
	gw(`{"operation":"cipher"}`)
	gw(`{"operation":"thought","args":{"thought":"` + c("thought") + ` alice@example.com 4111 1111 1111 1111","nextThoughtNeeded":true,"` + c("key") + `":"` + c("value") + `"}}`)
	gw(`{"operation":"` + c("op") + `"}`)
	s.post(ctx, e, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"`+c("tool")+`","arguments":{"operation":"get_state"}}}`, nil)
	s.post(ctx, e, `{"jsonrpc":"2.0","id":8,"method":"`+c("method")+`"}`, map[string]string{"Authorization": "Bearer " + c("token"), "X-Note": c("header")})
	s.post(ctx, e, `{"jsonrpc":"2.0","method":"notifications/`+c("notification")+`"}`, nil)
	s.post(ctx, e, `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"thoughtbox://`+c("uri")+`"}}`, nil)
	metrics, err := s.metrics(ctx)
	if err != nil {
		return fail(err.Error())
	}
	var leaks []string
	for sink, text := range map[string]string{"metrics": metrics, "logs": s.logs.String(), "traces": s.spanText()} {
		if i := strings.Index(text, mark); i >= 0 {
			leaks = append(leaks, fmt.Sprintf("%s (%q)", sink, excerpt(text, i)))
		}
	}
	if len(s.spans.Ended()) == 0 {
		return fail("the sidecar ended no span: its traces cannot be checked")
	}
	if len(leaks) > 0 {
		sort.Strings(leaks)
		return fail("request content reached " + strings.Join(leaks, ", "))
	}
	return pass(fmt.Sprintf("no canary in %d bytes of metrics, %d of logs, %d spans", len(metrics), len(s.logs.String()), len(s.spans.Ended())))
}

func excerpt(s string, i int) string {
	return s[max(0, i-40):min(len(s), i+40)]
}

// series matches the labels of one exposition line.
var labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// labelValues returns, per label name, the set of its values in an
// exposition.
func labelValues(exposition string) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, line := range strings.Split(exposition, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		for _, m := range labelPair.FindAllStringSubmatch(line, -1) {
			if out[m[1]] == nil {
				out[m[1]] = map[string]bool{}
			}
			out[m[1]][m[2]] = true
		}
	}
	return out
}

// maxNewValues is how many new values one label may gain from the random
// traffic: the fallback "other" and a few error kinds, never one per name.
const maxNewValues = 4

// cardinality sends 20 random method, tool and operation names each
// through a sidecar: no name may become a label value, and no label may
// gain more than a few values.
func cardinality(ctx context.Context, e *env) verdict {
	if e.tg.HTTPBase() == "" {
		return notApplicable("the sidecar's HTTP proxy is checked against HTTP targets; the target speaks stdio")
	}
	s, err := startSidecar(ctx, e)
	if err != nil {
		return fail("starting a sidecar in front of the target: " + err.Error())
	}
	defer s.close()
	before, err := s.metrics(ctx)
	if err != nil {
		return fail(err.Error())
	}
	const n = 20
	var names []string
	for i := range n {
		m, t, o := fmt.Sprintf("rnd%sm%d", e.nonce, i), fmt.Sprintf("rnd%st%d", e.nonce, i), fmt.Sprintf("rnd%so%d", e.nonce, i)
		names = append(names, m, t, o)
		s.post(ctx, e, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, 100+i, m), nil)
		s.post(ctx, e, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, 200+i, t), nil)
		s.post(ctx, e, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":%q}}}`, 300+i, o), nil)
	}
	after, err := s.metrics(ctx)
	if err != nil {
		return fail(err.Error())
	}
	if strings.Contains(after, "rnd"+e.nonce) {
		return fail("a random name became a label value")
	}
	b, a := labelValues(before), labelValues(after)
	var grown []string
	for label, vals := range a {
		added := 0
		for v := range vals {
			if !b[label][v] {
				added++
			}
		}
		if added > maxNewValues {
			grown = append(grown, fmt.Sprintf("%s gained %d values", label, added))
		}
	}
	if len(grown) > 0 {
		sort.Strings(grown)
		return fail(strings.Join(grown, "; ") + fmt.Sprintf(" from %d random names", len(names)))
	}
	return pass(fmt.Sprintf("%d random names: none became a label value, no label gained more than %d values", len(names), maxNewValues))
}
