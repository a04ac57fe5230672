// Package grafana holds the Grafana dashboard for mcp-sidecar
// (dashboards/mcp-sidecar.json, uid "thoughtbox-mcp", the uid Thoughtbox's
// observability_gateway dashboard_url points at) and its provisioning files,
// and gives tests and tools its queries.
package grafana

import (
	_ "embed"
	"encoding/json"
	"strings"
)

// DashboardJSON is dashboards/mcp-sidecar.json.
//
//go:embed dashboards/mcp-sidecar.json
var DashboardJSON []byte

// UID is the dashboard's stable uid.
const UID = "thoughtbox-mcp"

// Dashboard is the part of a Grafana dashboard model the checks read.
type Dashboard struct {
	UID           string  `json:"uid"`
	Title         string  `json:"title"`
	SchemaVersion int     `json:"schemaVersion"`
	Panels        []Panel `json:"panels"`
	Templating    struct {
		List []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"list"`
	} `json:"templating"`
}

// Panel is one dashboard panel.
type Panel struct {
	ID          int                      `json:"id"`
	Type        string                   `json:"type"`
	Title       string                   `json:"title"`
	GridPos     struct{ H, W, X, Y int } `json:"gridPos"`
	Datasource  *Datasource              `json:"datasource"`
	Targets     []Target                 `json:"targets"`
	FieldConfig struct {
		Defaults map[string]any `json:"defaults"`
	} `json:"fieldConfig"`
	Options map[string]any `json:"options"`
}

// Datasource names a panel's or target's datasource.
type Datasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// Target is one query of a panel.
type Target struct {
	RefID      string      `json:"refId"`
	Expr       string      `json:"expr"`
	Datasource *Datasource `json:"datasource"`
}

// Load parses the embedded dashboard.
func Load() (Dashboard, error) {
	var d Dashboard
	err := json.Unmarshal(DashboardJSON, &d)
	return d, err
}

// Query is one panel query.
type Query struct {
	Panel, RefID, Expr string
}

// Queries returns every query of the dashboard, in panel order.
func (d Dashboard) Queries() []Query {
	var qs []Query
	for _, p := range d.Panels {
		for _, t := range p.Targets {
			qs = append(qs, Query{Panel: p.Title, RefID: t.RefID, Expr: t.Expr})
		}
	}
	return qs
}

// Expand replaces the dashboard's variables in expr as Grafana would with
// every server selected and the given rate interval (e.g. "1m").
func Expand(expr, rateInterval string) string {
	return strings.NewReplacer(
		"$server_name", ".*",
		"$__rate_interval", rateInterval,
	).Replace(expr)
}
