package sidecar

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// startUpstream serves a fresh test MCP server.
func startUpstream(t testing.TB) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(sidecartest.New().Handler())
	t.Cleanup(ts.Close)
	return ts
}

// startProxy serves a proxy in front of upstream (a base URL; the MCP path
// is appended). mod may adjust the config.
func startProxy(t testing.TB, upstream string, mod func(*Config)) (*Proxy, *httptest.Server) {
	t.Helper()
	cfg := Config{
		Upstream:      upstream + sidecartest.Path,
		ServerName:    "test",
		ProbeInterval: -1,
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if mod != nil {
		mod(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(p.Handler())
	t.Cleanup(func() {
		ts.Close()
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return p, ts
}

// newClient returns an initialized mcp-go client on the legacy handshake.
func newClient(t testing.TB, base string, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(base+sidecartest.Path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	c = client.NewClient(c.GetTransport(), client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "sidecar-test", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// callTool calls a tool and fails the test on a transport or protocol error.
func callTool(t testing.TB, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// gatewayFlow runs the stage-gated flow of the brief: start_new, cipher,
// thought.
func gatewayFlow(t testing.TB, c *client.Client, thought string) {
	t.Helper()
	for _, step := range []map[string]any{
		{"operation": "start_new", "args": map[string]any{"newWork": map[string]any{"project": "p"}}},
		{"operation": "cipher"},
		{"operation": "thought", "args": map[string]any{"thought": thought, "nextThoughtNeeded": true}},
	} {
		if res := callTool(t, c, sidecartest.GatewayTool, step); res.IsError {
			t.Fatalf("gateway %v: tool error %v", step["operation"], res.Content)
		}
	}
}

// rawPost posts body with headers and returns the response and its body.
func rawPost(t testing.TB, url string, body string, headers map[string]string) (*http.Response, string) {
	t.Helper()
	return rawDo(t, http.MethodPost, url, body, headers)
}

func rawDo(t testing.TB, method, url, body string, headers map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// scrape returns the proxy's /metrics text.
func scrape(t testing.TB, base string) string {
	t.Helper()
	resp, body := rawDo(t, http.MethodGet, base+"/metrics", "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d", resp.StatusCode)
	}
	return body
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
