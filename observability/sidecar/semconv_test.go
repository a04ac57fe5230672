package sidecar

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// histogramPoints returns the data points of the histogram named name.
func histogramPoints(t *testing.T, tel *telemetry, name string) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tel.prom.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m.Data.(metricdata.Histogram[float64]).DataPoints
			}
		}
	}
	return nil
}

// countWhere sums the counts of the points whose attributes have the values
// of want ("" meaning absent).
func countWhere(points []metricdata.HistogramDataPoint[float64], want map[string]string) uint64 {
	var n uint64
next:
	for _, p := range points {
		for k, v := range want {
			got, ok := p.Attributes.Value(attribute.Key(k))
			if v == "" && ok || v != "" && got.AsString() != v && got.Emit() != v {
				continue next
			}
		}
		n += p.Count
	}
	return n
}

// wantOps checks that n calls of method ended with error.type errType ("":
// none) on both sides, with rpc.response.status_code for a JSON-RPC code.
func wantOps(t *testing.T, tel *telemetry, method, errType string, n uint64) {
	t.Helper()
	want := map[string]string{"mcp.method.name": method, "error.type": errType}
	if strings.HasPrefix(errType, "-") {
		want["rpc.response.status_code"] = errType
	}
	for _, name := range []string{MetricServerOperationDuration, MetricClientOperationDuration} {
		if got := countWhere(histogramPoints(t, tel, name), want); got != n {
			t.Errorf("%s %v: %d, want %d", name, want, got, n)
		}
	}
}

// TestGatewayCallAttributes checks the conventions' attributes of gateway
// calls on both sides: the tool, the Thoughtbox operation, the protocol
// version, the transport, the upstream's address on the client side, and
// error.type for a refused operation.
func TestGatewayCallAttributes(t *testing.T) {
	up := startUpstream(t)
	p, px := startProxy(t, up.URL, nil)
	c := newClient(t, px.URL)
	if _, err := c.ListTools(t.Context(), mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	if res := callTool(t, c, sidecartest.GatewayTool, map[string]any{"operation": "cipher"}); !res.IsError {
		t.Fatal("cipher before start_new was not refused")
	}
	gatewayFlow(t, c, "attributes")

	call := map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": sidecartest.GatewayTool,
		"gen_ai.operation.name": "execute_tool", "network.transport": "tcp", "network.protocol.name": "http",
		"mcp.protocol.version": mcp.LATEST_LEGACY_PROTOCOL_VERSION, "server_name": "test"}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range call {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	server := histogramPoints(t, p.tel, MetricServerOperationDuration)
	client := histogramPoints(t, p.tel, MetricClientOperationDuration)
	for _, tc := range []struct {
		want map[string]string
		n    uint64
	}{
		{with(map[string]string{"thoughtbox.operation": "start_new", "error.type": ""}), 1},
		{with(map[string]string{"thoughtbox.operation": "thought", "error.type": ""}), 1},
		{with(map[string]string{"thoughtbox.operation": "cipher", "error.type": ""}), 1},
		{with(map[string]string{"thoughtbox.operation": "cipher", "error.type": "tool_error", "rpc.response.status_code": ""}), 1},
	} {
		if got := countWhere(server, tc.want); got != tc.n {
			t.Errorf("server side %v: %d, want %d", tc.want, got, tc.n)
		}
		up := with(tc.want)
		up["server.address"] = "127.0.0.1"
		if got := countWhere(client, up); got != tc.n {
			t.Errorf("client side %v: %d, want %d", up, got, tc.n)
		}
	}
	if n := countWhere(client, map[string]string{"mcp.method.name": "tools/call", "server.address": ""}); n != 0 {
		t.Errorf("%d client-side points without server.address", n)
	}
	if n := countWhere(server, map[string]string{"mcp.method.name": "tools/list", "gen_ai.tool.name": "", "thoughtbox.operation": ""}); n != 1 {
		t.Errorf("tools/list points: %d, want 1 without tool attributes", n)
	}
	// The Prometheus names and labels, as dashboards query them.
	wantSeries(t, scrape(t, px.URL), `mcp_server_operation_duration_seconds_count{gen_ai_operation_name="execute_tool",gen_ai_tool_name="thoughtbox_gateway",mcp_method_name="tools/call",mcp_protocol_version="`+mcp.LATEST_LEGACY_PROTOCOL_VERSION+`",network_protocol_name="http",network_transport="tcp",server_name="test",thoughtbox_operation="start_new"} 1`)
	wantSeries(t, scrape(t, px.URL), `mcp_server_operation_duration_seconds_bucket{error_type="tool_error",gen_ai_operation_name="execute_tool"`)
}

// TestErrorTypes checks error.type and rpc.response.status_code of a
// JSON-RPC error, and _OTHER for a method outside the specification.
func TestErrorTypes(t *testing.T) {
	up := startUpstream(t)
	p, px := startProxy(t, up.URL, nil)
	c := newClient(t, px.URL)
	hdr := withSessionID(c.GetSessionId())
	rawPost(t, px.URL+sidecartest.Path, `{"jsonrpc":"2.0","id":5,"method":"no/such/method"}`, hdr)
	rawPost(t, px.URL+sidecartest.Path, `{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"nope"}}`, hdr)
	wantOps(t, p.tel, "_OTHER", "-32601", 1)
	server := histogramPoints(t, p.tel, MetricServerOperationDuration)
	if n := countWhere(server, map[string]string{"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "_OTHER"}); n != 1 {
		t.Errorf("prompts/get of an unlisted prompt: %d points with gen_ai.prompt.name _OTHER, want 1", n)
	}
	if got := p.Counts().Requests[MethodStatus{Other, outcome.Error}]; got != 1 {
		t.Errorf("Counts of the unknown method: %d, want 1", got)
	}
}

// TestSessionDuration checks mcp.server.session.duration and
// mcp.client.session.duration for a session the client deletes and one the
// upstream forgot.
func TestSessionDuration(t *testing.T) {
	up := startUpstream(t)
	p, px := startProxy(t, up.URL, nil)
	c := newClient(t, px.URL)
	rawDo(t, "DELETE", px.URL+sidecartest.Path, "", withSessionID(c.GetSessionId()))
	p.sessions.add("forgotten")
	rawPost(t, px.URL+sidecartest.Path, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, withSessionID("forgotten"))
	for _, name := range []string{MetricServerSessionDuration, MetricClientSessionDuration} {
		points := histogramPoints(t, p.tel, name)
		for errType, n := range map[string]uint64{"": 1, "404": 1} {
			if got := countWhere(points, map[string]string{"error.type": errType, "network.transport": "tcp"}); got != n {
				t.Errorf("%s with error.type %q: %d, want %d", name, errType, got, n)
			}
		}
	}
}

// TestLegacyMetrics checks that the legacy names appear only with
// LegacyMetrics, beside today's, and that Counts agree either way.
func TestLegacyMetrics(t *testing.T) {
	up := startUpstream(t)
	legacy := []string{`mcp_requests_total{method="tools/call",server_name="test",status="ok"} 3`,
		`mcp_tool_calls_total{operation="thought",server_name="test",status="ok",tool="thoughtbox_gateway",tool_name="thoughtbox_gateway"} 1`,
		`mcp_upstream_available{server_name="test"} 1`, `mcp_active_connections{server_name="test"} 0`,
		`mcp_notifications_total{direction="in",method="notifications/initialized",server_name="test"} 1`}
	current := []string{`mcp_sidecar_upstream_available{server_name="test"} 1`, `mcp_server_operation_duration_seconds_count{`,
		`mcp_sidecar_notifications_total{direction="in",mcp_method_name="notifications/initialized",server_name="test"} 1`}
	var counts []Counts
	for _, on := range []bool{false, true} {
		p, px := startProxy(t, up.URL, func(c *Config) { c.LegacyMetrics = on })
		c := newClient(t, px.URL)
		if _, err := c.ListTools(t.Context(), mcp.ListToolsRequest{}); err != nil {
			t.Fatal(err)
		}
		gatewayFlow(t, c, "legacy")
		m := scrape(t, px.URL)
		for _, s := range current {
			wantSeries(t, m, s)
		}
		for _, s := range legacy {
			if hasSeries(t, m, s) != on {
				t.Errorf("legacy %v: /metrics has %s: %v", on, s, !on)
			}
		}
		counts = append(counts, p.Counts())
	}
	if a, b := counts[0], counts[1]; len(a.Requests) == 0 || a.Total() != b.Total() || len(a.ToolCalls) != len(b.ToolCalls) {
		t.Errorf("Counts differ with legacy metrics: %v vs %v", a, b)
	}
	if n := counts[0].ToolCalls[ToolCall{sidecartest.GatewayTool, "thought", outcome.OK}]; n != 1 {
		t.Errorf("Counts of the thought call: %d, want 1 (all %v)", n, counts[0].ToolCalls)
	}
}
