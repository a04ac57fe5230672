package integration

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/observability/internal/promtest"
	"github.com/thoughtbox-bench/tbbench/observability/outcome"
	"github.com/thoughtbox-bench/tbbench/observability/promcheck"
	"github.com/thoughtbox-bench/tbbench/observability/prometheus"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// tally is what the clients count themselves.
type tally struct {
	mu    sync.Mutex
	req   map[string]int // "method status"
	tools map[string]int // "tool operation status"
}

func (c *tally) add(method, status string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.req[method+" "+status]++
}

func (c *tally) tool(tool, op, status string) {
	c.add("tools/call", status)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tools[tool+" "+op+" "+status]++
}

// session runs one client session of the reference server's flow.
func session(t *testing.T, url string, n int, want *tally) {
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Error(err)
		return
	}
	c = client.NewClient(c.GetTransport(), client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Error(err)
		return
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "integration", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Error(err)
		return
	}
	want.add("initialize", outcome.OK)
	if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		t.Error(err)
		return
	}
	want.add("tools/list", outcome.OK)
	call := func(tool, op string, args map[string]any) {
		a := map[string]any{"operation": op}
		if args != nil {
			a["args"] = args
		}
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: a}})
		switch {
		case err != nil:
			want.tool(sidecar.Other, sidecar.Other, outcome.Error)
		case res.IsError:
			want.tool(tool, op, outcome.ToolError)
		default:
			want.tool(tool, op, outcome.OK)
		}
	}
	call("thoughtbox_gateway", "cipher", nil) // refused: stage 0
	call("thoughtbox_gateway", "start_new", map[string]any{"newWork": map[string]any{"project": "p"}})
	call("thoughtbox_gateway", "cipher", nil)
	for i := range 3 {
		call("thoughtbox_gateway", "thought", map[string]any{"thought": fmt.Sprint("step ", n, i), "nextThoughtNeeded": true})
	}
	call("no_such_tool", "x", nil)
	if err := c.Ping(ctx); err != nil {
		t.Error(err)
		return
	}
	want.add("ping", outcome.OK)
}

// samples turns a query result into sorted "labels value" lines.
func samples(ss []promtest.Sample, labels ...string) map[string]int {
	out := map[string]int{}
	for _, s := range ss {
		var key []string
		for _, l := range labels {
			key = append(key, s.Metric[l])
		}
		v, _ := strconv.ParseFloat(s.Value, 64)
		out[strings.Join(key, " ")] += int(v)
	}
	return out
}

// withStatus adds to the series of q, which have error_type, the status
// the clients count: ok without error_type, tool_error, else error.
func withStatus(q string) string {
	q = `label_replace(` + q + `, "status", "error", "error_type", ".+")`
	q = `label_replace(` + q + `, "status", "ok", "error_type", "")`
	return `label_replace(` + q + `, "status", "tool_error", "error_type", "tool_error")`
}

// withOther spells _OTHER as the clients' tally does (sidecar.Other).
func withOther(q string) string {
	q = `label_replace(` + q + `, "gen_ai_tool_name", "other", "gen_ai_tool_name", "_OTHER")`
	return `label_replace(` + q + `, "thoughtbox_operation", "other", "thoughtbox_operation", "_OTHER")`
}

func sortedKeys(m map[string]int) string {
	var ks []string
	for k, v := range m {
		ks = append(ks, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// TestPrometheusEndToEnd scrapes the sidecar in front of the reference
// server with a real Prometheus: the counts Prometheus holds must equal the
// clients' counts, every dashboard query must return data, the alert rules
// must load and their signals return data, and killing the upstream must show in the availability gauge
// and start MCPUpstreamDown.
func TestPrometheusEndToEnd(t *testing.T) {
	cfg := mcpserver.Defaults()
	cfg.Storage, cfg.DataDir, cfg.DisableThoughtLogging = "memory", t.TempDir(), true
	ref, err := mcpserver.New(cfg, mcpserver.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(ref.Handler())
	defer ref.Close()
	defer up.Close()
	p, err := sidecar.New(sidecar.Config{Upstream: up.URL + "/mcp", ServerName: "thoughtbox",
		ProbeInterval: 200 * time.Millisecond, ProbeTimeout: time.Second,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	px := httptest.NewServer(p.Handler())
	defer px.Close()

	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [alerts.yml]
scrape_configs:
  - job_name: mcp-sidecar
    static_configs:
      - targets: [%q]
`, strings.TrimPrefix(px.URL, "http://"))
	prom := promtest.Start(t, config, map[string][]byte{"alerts.yml": prometheus.Alerts})
	prom.WaitUp(t, "mcp-sidecar")

	// Traffic in waves across several scrapes, so that rates and
	// quantiles have something to work on.
	want := &tally{req: map[string]int{}, tools: map[string]int{}}
	for wave := range 3 {
		var wg sync.WaitGroup
		for s := range 4 {
			wg.Go(func() { session(t, px.URL+"/mcp", wave*10+s, want) })
		}
		wg.Wait()
		time.Sleep(1200 * time.Millisecond)
	}
	if t.Failed() {
		t.FailNow()
	}

	// Prometheus must hold exactly the clients' counts (after a last scrape).
	wantReq, wantTools := sortedKeys(want.req), sortedKeys(want.tools)
	var gotReq, gotTools string
	deadline := time.Now().Add(15 * time.Second)
	for {
		gotReq = sortedKeys(samples(prom.Query(t, withStatus(`sum by (mcp_method_name, error_type) (mcp_server_operation_duration_seconds_count{job="mcp-sidecar",server_name="thoughtbox"})`)), "mcp_method_name", "status"))
		gotTools = sortedKeys(samples(prom.Query(t, withOther(withStatus(`sum by (gen_ai_tool_name, thoughtbox_operation, error_type) (mcp_server_operation_duration_seconds_count{job="mcp-sidecar",mcp_method_name="tools/call"})`))), "gen_ai_tool_name", "thoughtbox_operation", "status"))
		if gotReq == wantReq && gotTools == wantTools || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if gotReq != wantReq {
		t.Errorf("requests in Prometheus:\n  %s\nclients counted:\n  %s", gotReq, wantReq)
	}
	if gotTools != wantTools {
		t.Errorf("tool calls in Prometheus:\n  %s\nclients counted:\n  %s", gotTools, wantTools)
	}

	// Every dashboard query and every alert rule's signal returns data (a
	// real number, not only NaN), and every rule evaluates without error;
	// two more scrapes give the rates their second sample. The queries are
	// evaluated when the second was the latest: a scrape failing later
	// would hide the gauges from "now".
	ctx := context.Background()
	at, err := prom.WaitScrapedTwice(ctx, "mcp-sidecar", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // a rule evaluation after the scrapes
	results, err := promcheck.Check(ctx, prom.Server, promcheck.Options{RateInterval: "10s", At: at})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) < 27 {
		t.Fatalf("only %d checks (panel queries and alert rules)", len(results))
	}
	for _, r := range results {
		if !r.OK {
			t.Errorf("%s: %s", r.Name, r.Detail)
		}
	}

	// Thoughtbox's observability_gateway health check reads these two.
	if s := prom.QueryAt(t, "mcp_sidecar_upstream_available", at); len(s) != 1 || s[0].Value != "1" {
		t.Errorf("mcp_sidecar_upstream_available = %v, want one series at 1", s)
	}
	if s := prom.QueryAt(t, "mcp_sidecar_active_requests", at); len(s) != 1 {
		t.Errorf("mcp_sidecar_active_requests = %v", s)
	}

	// The rules loaded, and none fires on healthy traffic.
	if s := prom.Query(t, `count(ALERTS{alertstate="firing"}) or vector(0)`); s[0].Value != "0" {
		t.Errorf("alerts firing on healthy traffic: %v", prom.Query(t, `ALERTS`))
	}

	// Kill the upstream: the gauge drops and MCPUpstreamDown goes pending.
	up.Close()
	deadline = time.Now().Add(15 * time.Second)
	for {
		down := prom.Query(t, `mcp_sidecar_upstream_available{job="mcp-sidecar"} == 0`)
		pending := prom.Query(t, `ALERTS{alertname="MCPUpstreamDown",alertstate="pending",server_name="thoughtbox"}`)
		if len(down) == 1 && len(pending) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("upstream death not seen: gauge==0 %v, alert %v", down, pending)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
