package grafana

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/observability/internal/promtest"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

func load(t *testing.T) Dashboard {
	t.Helper()
	d, err := Load()
	if err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	return d
}

// TestDashboardModel validates the dashboard's structure: stable uid,
// datasource and server variables, unique ids, a sane grid without
// overlaps, units where Grafana reads them (fieldConfig, not options), and
// every panel querying the selected datasource.
func TestDashboardModel(t *testing.T) {
	d := load(t)
	if d.UID != UID || d.Title == "" || d.SchemaVersion < 36 {
		t.Errorf("uid %q title %q schemaVersion %d", d.UID, d.Title, d.SchemaVersion)
	}
	var vars []string
	for _, v := range d.Templating.List {
		vars = append(vars, v.Name+":"+v.Type)
	}
	if !slices.Contains(vars, "datasource:datasource") || !slices.Contains(vars, "server_name:query") {
		t.Errorf("template variables %v", vars)
	}
	ids := map[int]bool{}
	type cell struct{ x, y int }
	used := map[cell]string{}
	for _, p := range d.Panels {
		if ids[p.ID] || p.ID == 0 {
			t.Errorf("panel %q: id %d missing or repeated", p.Title, p.ID)
		}
		ids[p.ID] = true
		g := p.GridPos
		if g.W <= 0 || g.H <= 0 || g.X < 0 || g.X+g.W > 24 {
			t.Errorf("panel %q: gridPos %+v", p.Title, g)
		}
		for x := g.X; x < g.X+g.W; x++ {
			for y := g.Y; y < g.Y+g.H; y++ {
				if other, ok := used[cell{x, y}]; ok {
					t.Errorf("panel %q overlaps %q at %d,%d", p.Title, other, x, y)
				}
				used[cell{x, y}] = p.Title
			}
		}
		if p.Type == "row" {
			continue
		}
		if !slices.Contains([]string{"stat", "timeseries", "table"}, p.Type) || p.Title == "" {
			t.Errorf("panel %q: type %q", p.Title, p.Type)
		}
		if p.Datasource == nil || p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q: datasource %+v", p.Title, p.Datasource)
		}
		if _, ok := p.FieldConfig.Defaults["unit"]; !ok {
			t.Errorf("panel %q: no unit in fieldConfig.defaults", p.Title)
		}
		if _, ok := p.Options["unit"]; ok {
			t.Errorf("panel %q: unit misplaced in options", p.Title)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q: no queries", p.Title)
		}
		refs := map[string]bool{}
		for _, tg := range p.Targets {
			if tg.Expr == "" || tg.RefID == "" || refs[tg.RefID] {
				t.Errorf("panel %q: target %+v", p.Title, tg)
			}
			refs[tg.RefID] = true
			if !strings.Contains(tg.Expr, `server_name=~"$server_name"`) {
				t.Errorf("panel %q: query ignores the server variable: %s", p.Title, tg.Expr)
			}
		}
	}
}

// TestDashboardCoverage checks that the panels cover what operators need.
func TestDashboardCoverage(t *testing.T) {
	var all []string
	for _, q := range load(t).Queries() {
		all = append(all, q.Expr)
	}
	text := strings.Join(all, "\n")
	for what, re := range map[string]string{
		"request rate by method":  `sum by \(mcp_method_name\) \(rate\(mcp_server_operation_duration_seconds_count`,
		"request rate by status":  `sum by \(error_type\) \(rate\(mcp_server_operation_duration_seconds_count`,
		"error rate":              `mcp_server_operation_duration_seconds_count\{error_type!~"\|tool_error\|cancelled"`,
		"latency p50":             `histogram_quantile\(0\.5, sum by \(le\) \(rate\(mcp_server_operation_duration_seconds_bucket`,
		"latency p99":             `histogram_quantile\(0\.99, sum by \(le\) \(rate\(mcp_server_operation_duration_seconds_bucket`,
		"per-operation rate":      `sum by \(gen_ai_tool_name, thoughtbox_operation\) \(rate\(mcp_server_operation_duration_seconds_count\{mcp_method_name="tools/call"`,
		"per-operation latency":   `sum by \(le, gen_ai_tool_name, thoughtbox_operation\) \(rate\(mcp_server_operation_duration_seconds_bucket\{mcp_method_name="tools/call"`,
		"sessions":                `mcp_sidecar_active_sessions`,
		"SSE streams":             `mcp_sidecar_sse_active_streams`,
		"upstream availability":   `mcp_sidecar_upstream_available`,
		"upstream last success":   `mcp_sidecar_upstream_last_success_seconds`,
		"errors by JSON-RPC code": `by \(mcp_method_name, error_type\) \(rate\(mcp_server_operation_duration_seconds_count`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("no panel shows %s", what)
		}
	}
}

// exportedMetrics returns the metric names a sidecar really exposes on
// /metrics (as the OpenTelemetry Prometheus exporter spells them) after
// gateway traffic through it.
func exportedMetrics(t *testing.T) []string {
	t.Helper()
	up := httptest.NewServer(sidecartest.New().Handler())
	t.Cleanup(up.Close)
	p, err := sidecar.New(sidecar.Config{Upstream: up.URL + sidecartest.Path, ProbeInterval: time.Hour,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	px := httptest.NewServer(p.Handler())
	t.Cleanup(px.Close)
	c, err := client.NewStreamableHttpClient(px.URL + sidecartest.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := t.Context()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	_, _ = c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: sidecartest.GatewayTool, Arguments: map[string]any{"operation": "start_new"}}})
	note, _ := http.NewRequest(http.MethodPost, px.URL+sidecartest.Path, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	note.Header.Set("Content-Type", "application/json")
	note.Header.Set("Accept", "application/json, text/event-stream")
	note.Header.Set("Mcp-Session-Id", c.GetSessionId())
	if resp, err := http.DefaultClient.Do(note); err == nil {
		resp.Body.Close()
	}
	// The probe checks the upstream once at start, beside these calls: wait
	// for its first check to be recorded too.
	var body []byte
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(px.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if bytes.Contains(body, []byte("upstream_check_duration")) || time.Now().After(deadline) {
			break
		}
	}
	var names []string
	for _, line := range strings.Split(string(body), "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			names = append(names, f[2])
		}
	}
	return names
}

// TestDashboardQueriesValid checks every query: it names only metrics the
// sidecar exports, and promtool parses it (each is checked as a recording
// rule).
func TestDashboardQueriesValid(t *testing.T) {
	metric := regexp.MustCompile(`\bmcp_[a-z_]+[{\[]`)
	exported := exportedMetrics(t)
	var rules strings.Builder
	rules.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	for i, q := range load(t).Queries() {
		for _, m := range metric.FindAllString(q.Expr, -1) {
			base := m[:len(m)-1]
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				base = strings.TrimSuffix(base, suffix)
			}
			if !slices.Contains(exported, base) {
				t.Errorf("panel %q queries %s, which the sidecar does not export", q.Panel, m)
			}
		}
		fmt.Fprintf(&rules, "      - record: dashboard:query_%d\n        expr: %q\n", i, Expand(q.Expr, "1m"))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "queries.yml"), []byte(rules.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	promtest.Promtool(t, dir, "check", "rules", "queries.yml")
}
