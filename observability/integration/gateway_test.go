package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/observability/internal/promtest"
	"github.com/thoughtbox-bench/tbbench/observability/prometheus"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// gatewayClient calls observability_gateway on a reference server.
type gatewayClient struct {
	t *testing.T
	c *client.Client
}

func (g gatewayClient) call(op string, args map[string]any) (map[string]any, bool) {
	g.t.Helper()
	a := map[string]any{"operation": op}
	if args != nil {
		a["args"] = args
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := g.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "observability_gateway", Arguments: a}})
	if err != nil {
		g.t.Fatalf("%s: %v", op, err)
	}
	text := res.Content[0].(mcp.TextContent).Text
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		g.t.Fatalf("%s: not JSON: %s", op, text)
	}
	return m, res.IsError
}

func (g gatewayClient) ok(op string, args map[string]any) map[string]any {
	g.t.Helper()
	m, isErr := g.call(op, args)
	if isErr {
		g.t.Fatalf("%s %v failed: %v", op, args, m)
	}
	return m
}

func dialMCP(t *testing.T, url string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "gateway-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestObservabilityGatewayAgainstPrometheus runs observability_gateway
// against a real Prometheus that scrapes an mcp-sidecar in front of a
// reference server, and a fake Grafana: health, instant and range queries
// (passed as parameters, bad PromQL reported with Prometheus' reason),
// alerts (none on healthy traffic, MCPUpstreamDown once the upstream dies),
// sessions and dashboard links.
func TestObservabilityGatewayAgainstPrometheus(t *testing.T) {
	// The upstream behind the sidecar.
	cfg := mcpserver.Defaults()
	cfg.Storage, cfg.DataDir, cfg.DisableThoughtLogging = "memory", t.TempDir(), true
	ref, err := mcpserver.New(cfg, mcpserver.WithLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(ref.Handler())
	defer ref.Close()
	defer up.Close()
	p, err := sidecar.New(sidecar.Config{Upstream: up.URL + "/mcp", ServerName: "thoughtbox",
		ProbeInterval: 200 * time.Millisecond, ProbeTimeout: time.Second, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	px := httptest.NewServer(p.Handler())
	defer px.Close()
	prom := promtest.Start(t, fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [alerts.yml]
scrape_configs:
  - job_name: mcp-sidecar
    static_configs:
      - targets: [%q]
`, strings.TrimPrefix(px.URL, "http://")), map[string][]byte{"alerts.yml": prometheus.Alerts})
	prom.WaitUp(t, "mcp-sidecar")
	// One client session through the sidecar, kept open.
	dialMCP(t, px.URL+"/mcp")

	grafana := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/health" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"database":"ok","version":"11.2.0"}`))
	}))
	defer grafana.Close()

	// The server whose observability_gateway is under test.
	obsCfg := mcpserver.Defaults()
	obsCfg.Storage, obsCfg.DataDir, obsCfg.DisableThoughtLogging = "memory", t.TempDir(), true
	obsCfg.Observability.PrometheusURL, obsCfg.Observability.GrafanaURL = prom.URL+"/", grafana.URL
	obs, err := mcpserver.New(obsCfg, mcpserver.WithLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	obsHTTP := httptest.NewServer(obs.Handler())
	defer obsHTTP.Close()
	g := gatewayClient{t: t, c: dialMCP(t, obsHTTP.URL+"/mcp")}

	// Health: the gauges need a scrape after the probe.
	var h map[string]any
	deadline := time.Now().Add(15 * time.Second)
	for {
		h = g.ok("health", nil)
		if h["status"] == "healthy" || time.Now().After(deadline) {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	svc := h["services"].(map[string]any)
	if h["status"] != "healthy" {
		t.Fatalf("health: %v", h)
	}
	if s := svc["sidecar"].(map[string]any); s["upstream_available"] != true || s["active_connections"] == nil {
		t.Errorf("sidecar: %v", s)
	}
	if s := svc["prometheus"].(map[string]any); s["targets_up"] != 1.0 || s["targets_total"] != 1.0 {
		t.Errorf("prometheus: %v", s)
	}
	if s := svc["grafana"].(map[string]any); s["version"] != "11.2.0" || s["database"] != "ok" {
		t.Errorf("grafana: %v", s)
	}

	// An instant query, its body as Prometheus gave it.
	m := g.ok("metrics", map[string]any{"query": `mcp_sidecar_upstream_available{job="mcp-sidecar"}`})
	data := m["data"].(map[string]any)
	res := data["result"].([]any)
	if m["status"] != "success" || data["resultType"] != "vector" || len(res) != 1 ||
		res[0].(map[string]any)["value"].([]any)[1] != "1" {
		t.Errorf("metrics: %v", m)
	}
	// With a time: the sample's timestamp is that time.
	at := time.Now().Add(-time.Hour).Unix()
	m = g.ok("metrics", map[string]any{"query": `vector(1)`, "time": fmt.Sprint(at)})
	if v := m["data"].(map[string]any)["result"].([]any)[0].(map[string]any)["value"].([]any); v[0] != float64(at) {
		t.Errorf("metrics at %d: %v", at, v)
	}
	// A range query.
	now := time.Now().Unix()
	m = g.ok("metrics_range", map[string]any{"query": `up{job="mcp-sidecar"}`, "start": fmt.Sprint(now - 60), "end": fmt.Sprint(now + 2), "step": "1s"})
	if d := m["data"].(map[string]any); d["resultType"] != "matrix" || len(d["result"].([]any)) != 1 {
		t.Errorf("metrics_range %d..%d: %v; instant now: %v", now-5, now, m, g.ok("metrics", map[string]any{"query": `up`}))
	}
	// Bad PromQL: Prometheus' own reason, as an error.
	if m, isErr := g.call("metrics", map[string]any{"query": `up{`}); !isErr || !strings.Contains(m["error"].(string), "400") {
		t.Errorf("bad PromQL: %v (isError %v)", m, isErr)
	}

	// Alerts: none firing on healthy traffic (the absence alert may be
	// pending from before the first scrape); the counts are the list's.
	m = g.ok("alerts", nil)
	pending := 0.0
	for _, a := range m["alerts"].([]any) {
		if a.(map[string]any)["state"] == "pending" {
			pending++
		}
	}
	if m["firing"] != 0.0 || m["pending"] != pending {
		t.Errorf("alerts on healthy traffic: %v", m)
	}

	// Sessions of the server under test.
	th := g.c
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, a := range []map[string]any{
		{"operation": "start_new", "args": map[string]any{"newWork": map[string]any{"project": "obs"}}},
		{"operation": "cipher"},
		{"operation": "thought", "args": map[string]any{"thought": "watched", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": true, "sessionTitle": "observed"}},
	} {
		if r, err := th.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "thoughtbox_gateway", Arguments: a}}); err != nil || r.IsError {
			t.Fatalf("%v: %v %v", a, err, r)
		}
	}
	m = g.ok("sessions", nil)
	list := m["sessions"].([]any)
	if m["total"] != 1.0 || list[0].(map[string]any)["title"] != "observed" || list[0].(map[string]any)["status"] != "active" {
		t.Errorf("sessions: %v", m)
	}
	id := list[0].(map[string]any)["id"].(string)
	if m := g.ok("session_info", map[string]any{"sessionId": id}); m["thoughtCount"] != 1.0 || m["metrics"] == nil {
		t.Errorf("session_info: %v", m)
	}
	if m := g.ok("dashboard_url", nil); m["url"] != grafana.URL+"/d/thoughtbox-mcp/thoughtbox-mcp" {
		t.Errorf("dashboard_url: %v", m)
	}

	// The upstream dies: the sidecar turns unhealthy and MCPUpstreamDown
	// goes pending.
	up.Close()
	deadline = time.Now().Add(20 * time.Second)
	for {
		h = g.ok("health", map[string]any{"services": []any{"sidecar"}})
		a := g.ok("alerts", map[string]any{"state": "pending"})
		found := false
		for _, al := range a["alerts"].([]any) {
			found = found || al.(map[string]any)["name"] == "MCPUpstreamDown"
		}
		if h["status"] == "unhealthy" && found && a["pending"].(float64) >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the upstream's death is not seen: health %v, pending alerts %v", h, a)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if s := h["services"].(map[string]any)["sidecar"].(map[string]any); s["upstream_available"] != false {
		t.Errorf("sidecar after the upstream died: %v", s)
	}

	// Prometheus stops: a clear error, not a hang.
	prom.Close()
	start := time.Now()
	if m, isErr := g.call("metrics", map[string]any{"query": "up"}); !isErr || !strings.Contains(m["error"].(string), "Prometheus") {
		t.Errorf("Prometheus down: %v (isError %v)", m, isErr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the call with Prometheus down took %s", d)
	}
}
