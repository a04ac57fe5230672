package grafana

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/observability/internal/promtest"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
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
		"request rate by method":  `sum by \(method\) \(rate\(mcp_requests_total`,
		"request rate by status":  `sum by \(status\) \(rate\(mcp_requests_total`,
		"error rate":              `mcp_requests_total\{status="error"`,
		"latency p50":             `histogram_quantile\(0\.5, sum by \(le\) \(rate\(mcp_request_duration_seconds_bucket`,
		"latency p99":             `histogram_quantile\(0\.99, sum by \(le\) \(rate\(mcp_request_duration_seconds_bucket`,
		"per-operation rate":      `sum by \(tool, operation\) \(rate\(mcp_tool_calls_total`,
		"per-operation latency":   `sum by \(le, tool, operation\) \(rate\(mcp_tool_duration_seconds_bucket`,
		"sessions":                `mcp_sessions_active`,
		"SSE streams":             `mcp_sse_streams_active`,
		"upstream availability":   `mcp_upstream_available`,
		"upstream last success":   `mcp_upstream_last_success_timestamp_seconds`,
		"errors by JSON-RPC code": `by \(method, error_code\) \(rate\(mcp_protocol_errors_total`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("no panel shows %s", what)
		}
	}
}

// sidecarMetrics are the metric names the sidecar exports.
var sidecarMetrics = []string{
	sidecar.MetricRequests, sidecar.MetricRequestDuration, sidecar.MetricProtocolErrors, sidecar.MetricToolCalls,
	sidecar.MetricToolDuration, sidecar.MetricToolsListed, sidecar.MetricResourcesListed, sidecar.MetricResourceReads,
	sidecar.MetricPromptsListed, sidecar.MetricPromptGets, sidecar.MetricNotifications, sidecar.MetricMessages,
	sidecar.MetricMessageBytes, sidecar.MetricSSEEvents, sidecar.MetricUpstreamHTTP, sidecar.MetricCheckDuration,
	sidecar.MetricOverhead, sidecar.MetricRejected, sidecar.MetricInflight, sidecar.MetricActiveConns,
	sidecar.MetricSessionsActive, sidecar.MetricSSEStreams, sidecar.MetricUpstreamUp, sidecar.MetricUpstreamLastOK,
	sidecar.MetricBuildInfo,
}

// TestDashboardQueriesValid checks every query: it names only metrics the
// sidecar exports, and promtool parses it (each is checked as a recording
// rule).
func TestDashboardQueriesValid(t *testing.T) {
	metric := regexp.MustCompile(`\bmcp_[a-z_]+`)
	var rules strings.Builder
	rules.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	for i, q := range load(t).Queries() {
		for _, m := range metric.FindAllString(q.Expr, -1) {
			base := m
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				base = strings.TrimSuffix(base, suffix)
			}
			if !slices.Contains(sidecarMetrics, base) {
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
