package obsgateway

import (
	"context"
	"errors"
)

// alert is one alert of the answer.
type alert struct {
	Name        string `json:"name"`
	State       string `json:"state"`
	Severity    string `json:"severity,omitempty"`
	Summary     string `json:"summary,omitempty"`
	Description string `json:"description,omitempty"`
	ActiveAt    string `json:"activeAt,omitempty"`
	Value       string `json:"value,omitempty"`
}

type alertsResult struct {
	Alerts []alert `json:"alerts"`
	// Firing and Pending count the alerts in the list returned (after the
	// state filter).
	Firing  int `json:"firing"`
	Pending int `json:"pending"`
}

// alerts lists Prometheus' alerts, filtered by state.
func (g *Gateway) alerts(ctx context.Context, a Args) (any, error) {
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   *struct {
			Alerts []struct {
				Labels      map[string]string `json:"labels"`
				Annotations map[string]string `json:"annotations"`
				State       string            `json:"state"`
				ActiveAt    string            `json:"activeAt"`
				Value       string            `json:"value"`
			} `json:"alerts"`
		} `json:"data"`
	}
	if err := g.prom.getJSON(ctx, "/api/v1/alerts", nil, &body); err != nil {
		return nil, err
	}
	if body.Status != "success" || body.Data == nil {
		if body.Error != "" {
			return nil, errors.New("Prometheus API error: " + body.Error)
		}
		return nil, errors.New("Prometheus API error: the alerts answer has no data")
	}
	res := alertsResult{Alerts: []alert{}}
	for _, al := range body.Data.Alerts {
		if a.State != "" && a.State != "all" && al.State != a.State {
			continue
		}
		name := al.Labels["alertname"]
		if name == "" {
			name = "unknown"
		}
		res.Alerts = append(res.Alerts, alert{Name: name, State: al.State, Severity: al.Labels["severity"],
			Summary: al.Annotations["summary"], Description: al.Annotations["description"], ActiveAt: al.ActiveAt, Value: al.Value})
		switch al.State {
		case "firing":
			res.Firing++
		case "pending":
			res.Pending++
		}
	}
	return res, nil
}
