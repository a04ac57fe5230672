package obsgateway

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// Services lists the services health checks, in its default order.
var Services = []string{"thoughtbox", "sidecar", "prometheus", "grafana"}

// The sidecar's gauges health reads from Prometheus (fixed expressions):
// today's names, or those of sidecars before the semantic conventions
// (and of mcp-sidecar --legacy-metrics).
const (
	sidecarUpstreamMetric    = "mcp_sidecar_upstream_available or mcp_upstream_available"
	sidecarConnectionsMetric = "mcp_sidecar_active_requests or mcp_active_connections"
)

// Service states.
const (
	healthy   = "healthy"
	unhealthy = "unhealthy"
	unknown   = "unknown"
	degraded  = "degraded"
)

// serviceHealth is one service's entry; the fields besides Status and Error
// depend on the service.
type serviceHealth struct {
	Status            string `json:"status"`
	Version           string `json:"version,omitempty"`
	Database          string `json:"database,omitempty"`
	UpstreamAvailable *bool  `json:"upstream_available,omitempty"`
	ActiveConnections *int   `json:"active_connections,omitempty"`
	TargetsUp         *int   `json:"targets_up,omitempty"`
	TargetsTotal      *int   `json:"targets_total,omitempty"`
	Error             string `json:"error,omitempty"`
}

type healthResult struct {
	Status    string       `json:"status"`
	Timestamp string       `json:"timestamp"`
	Services  jsonx.Object `json:"services"`
}

// health checks the services concurrently; each check is bounded by its
// service's time limit.
func (g *Gateway) health(ctx context.Context, a Args) (any, error) {
	names := Services
	if a.ServicesGiven {
		if len(a.Services) == 0 {
			return nil, &ArgError{Message: "Invalid argument 'services': name at least one service (" + strings.Join(Services, ", ") + ")", Field: "services", ValidValues: Services}
		}
		names = nil
		for _, n := range a.Services {
			if !slices.Contains(Services, n) {
				return nil, &ArgError{Message: fmt.Sprintf("Invalid argument 'services': unknown service %q (valid: %s)", n, strings.Join(Services, ", ")), Field: "services", ValidValues: Services}
			}
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	results := make([]serviceHealth, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = g.check(ctx, n)
		}()
	}
	wg.Wait()
	res := healthResult{Status: healthy, Timestamp: g.cfg.Now().UTC().Format("2006-01-02T15:04:05.000Z")}
	for i, n := range names {
		res.Services.Set(n, results[i])
		switch results[i].Status {
		case unhealthy:
			res.Status = unhealthy
		case healthy:
		default:
			if res.Status == healthy {
				res.Status = degraded
			}
		}
	}
	return res, nil
}

func (g *Gateway) check(ctx context.Context, name string) serviceHealth {
	switch name {
	case "thoughtbox":
		// This server answers the call, so it is up.
		return serviceHealth{Status: healthy, Version: g.cfg.Version}
	case "sidecar":
		return g.checkSidecar(ctx)
	case "prometheus":
		return g.checkPrometheus(ctx)
	}
	return g.checkGrafana(ctx)
}

// checkSidecar reads the sidecar's gauges from Prometheus.
func (g *Gateway) checkSidecar(ctx context.Context) serviceHealth {
	up, err := g.scalarOf(ctx, sidecarUpstreamMetric)
	if err != nil {
		return serviceHealth{Status: unknown, Error: err.Error()}
	}
	if up == "" {
		return serviceHealth{Status: unknown, Error: "No metrics available: Prometheus has no " + sidecarUpstreamMetric + " sample (is the sidecar scraped?)"}
	}
	conns, err := g.scalarOf(ctx, sidecarConnectionsMetric)
	if err != nil {
		return serviceHealth{Status: unknown, Error: err.Error()}
	}
	n, _ := strconv.ParseFloat(conns, 64)
	c := int(n)
	avail := up == "1"
	st := unhealthy
	if avail {
		st = healthy
	}
	return serviceHealth{Status: st, UpstreamAvailable: &avail, ActiveConnections: &c}
}

// checkPrometheus asks Prometheus whether it is healthy, then counts its
// scrape targets.
func (g *Gateway) checkPrometheus(ctx context.Context) serviceHealth {
	if _, err := g.prom.get(ctx, "/-/healthy", nil, ""); err != nil {
		return serviceHealth{Status: unhealthy, Error: "Health check failed: " + err.Error()}
	}
	var body struct {
		Data struct {
			ActiveTargets []struct {
				Health string `json:"health"`
			} `json:"activeTargets"`
		} `json:"data"`
	}
	if err := g.prom.getJSON(ctx, "/api/v1/targets", nil, &body); err != nil {
		return serviceHealth{Status: unhealthy, Error: err.Error()}
	}
	up, total := 0, len(body.Data.ActiveTargets)
	for _, t := range body.Data.ActiveTargets {
		if t.Health == "up" {
			up++
		}
	}
	return serviceHealth{Status: healthy, TargetsUp: &up, TargetsTotal: &total}
}

// checkGrafana reads Grafana's health endpoint.
func (g *Gateway) checkGrafana(ctx context.Context) serviceHealth {
	body, err := g.grafana.get(ctx, "/api/health", nil, "application/json")
	if err != nil {
		return serviceHealth{Status: unhealthy, Error: err.Error()}
	}
	var h struct {
		Version  string `json:"version"`
		Database string `json:"database"`
	}
	if json.Unmarshal(body, &h) != nil {
		return serviceHealth{Status: unhealthy, Error: "Grafana at " + g.grafana.base + " answered /api/health with something that is not JSON"}
	}
	if h.Version == "" {
		h.Version = unknown
	}
	if h.Database == "" {
		h.Database = unknown
	}
	st := unhealthy
	if h.Database == "ok" {
		st = healthy
	}
	return serviceHealth{Status: st, Version: h.Version, Database: h.Database}
}
