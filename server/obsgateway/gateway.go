// Package obsgateway is the observability_gateway tool without its MCP
// wiring: health of the server, the sidecar, Prometheus and Grafana;
// PromQL instant and range queries and alerts from a real Prometheus; the
// server's reasoning sessions; and Grafana dashboard links.
//
// Prometheus and Grafana are reached over HTTP with a time limit each, so a
// call never hangs; when they cannot be reached the call is an error that
// says which service, where, and why. A query is passed to Prometheus as a
// URL parameter, never spliced into other PromQL.
package obsgateway

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/clip"
	"github.com/thoughtbox-bench/tbbench/server/reply"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// Operations lists the tool's operations, in the order of its schema.
var Operations = []string{"health", "metrics", "metrics_range", "sessions", "session_info", "alerts", "dashboard_url"}

// Defaults of Config.
const (
	DefaultPrometheusURL     = "http://localhost:9090"
	DefaultGrafanaURL        = "http://localhost:3000"
	DefaultPrometheusTimeout = 10 * time.Second
	DefaultGrafanaTimeout    = 5 * time.Second
	// DefaultDashboard is the dashboard dashboard_url links to by default.
	DefaultDashboard = "thoughtbox-mcp"
)

// Config is what the gateway needs.
type Config struct {
	// PrometheusURL is Prometheus' base URL (one trailing "/" ignored).
	PrometheusURL string
	// GrafanaURL is Grafana's base URL.
	GrafanaURL string
	// PrometheusTimeout and GrafanaTimeout bound each request.
	PrometheusTimeout, GrafanaTimeout time.Duration
	// Store holds the reasoning sessions of sessions and session_info.
	Store storage.Store
	// Version is the server's version, reported by health.
	Version string
	// Now supplies the time; nil means time.Now.
	Now func() time.Time
	// Client makes the HTTP requests; nil means a client of its own.
	Client *http.Client
}

// Gateway answers observability_gateway calls.
type Gateway struct {
	cfg     Config
	prom    *service
	grafana *service
}

// New returns a gateway with cfg, defaults filled in.
func New(cfg Config) *Gateway {
	if cfg.PrometheusURL == "" {
		cfg.PrometheusURL = DefaultPrometheusURL
	}
	if cfg.GrafanaURL == "" {
		cfg.GrafanaURL = DefaultGrafanaURL
	}
	if cfg.PrometheusTimeout <= 0 {
		cfg.PrometheusTimeout = DefaultPrometheusTimeout
	}
	if cfg.GrafanaTimeout <= 0 {
		cfg.GrafanaTimeout = DefaultGrafanaTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second}}
	}
	cfg.PrometheusURL = strings.TrimSuffix(cfg.PrometheusURL, "/")
	cfg.GrafanaURL = strings.TrimSuffix(cfg.GrafanaURL, "/")
	return &Gateway{cfg: cfg,
		prom:    &service{name: "Prometheus", base: cfg.PrometheusURL, timeout: cfg.PrometheusTimeout, client: cfg.Client},
		grafana: &service{name: "Grafana", base: cfg.GrafanaURL, timeout: cfg.GrafanaTimeout, client: cfg.Client}}
}

// Call runs one call; raw is the tool's arguments object
// {"operation": ..., "args": {...}}.
func (g *Gateway) Call(ctx context.Context, raw json.RawMessage) reply.Reply {
	var call struct {
		Operation *string         `json:"operation"`
		Args      json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(raw, &call); err != nil {
		return reply.ErrorJSON(invalid{Error: "Arguments must be a JSON object with an 'operation' field", ValidOperations: Operations})
	}
	if call.Operation == nil {
		return reply.ErrorJSON(invalid{Error: "Missing required argument: operation", ValidOperations: Operations})
	}
	run, ok := map[string]func(context.Context, Args) (any, error){
		"health": g.health, "metrics": g.metrics, "metrics_range": g.metricsRange, "sessions": g.sessions,
		"session_info": g.sessionInfo, "alerts": g.alerts, "dashboard_url": g.dashboardURL,
	}[*call.Operation]
	if !ok {
		return reply.ErrorJSON(invalid{Error: "Unknown operation '" + clip.String(*call.Operation) + "'", ValidOperations: Operations})
	}
	args, bad := decodeArgs(call.Args)
	if bad != nil {
		return reply.ErrorJSON(bad)
	}
	res, err := run(ctx, args)
	if err != nil {
		if ae, ok := err.(*ArgError); ok {
			return reply.ErrorJSON(ae)
		}
		return reply.Error(err.Error())
	}
	return reply.JSON(res)
}

type invalid struct {
	Error           string   `json:"error"`
	ValidOperations []string `json:"validOperations,omitempty"`
}
