package sidecar

import (
	"encoding/json"
	"net/http"
	"time"
)

// healthReport is the body of /healthz.
type healthReport struct {
	Status      string  `json:"status"`   // ok | degraded
	Upstream    string  `json:"upstream"` // up | down
	LastSuccess *string `json:"last_success"`
	Probe       string  `json:"probe"` // active | passive
	ServerName  string  `json:"server_name"`
}

// serveHealthz reports the sidecar's view of the upstream: 200 when the
// upstream is available, 503 when it is not.
func (t *telemetry) serveHealthz(w http.ResponseWriter, probing bool) {
	rep := healthReport{Status: "ok", Upstream: "up", Probe: "active", ServerName: t.server}
	if !probing {
		rep.Probe = "passive"
	}
	if ns := t.state.lastSuccess.Load(); ns != 0 {
		s := time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
		rep.LastSuccess = &s
	}
	code := http.StatusOK
	if t.state.available.Load() != 1 {
		rep.Status, rep.Upstream, code = "degraded", "down", http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(rep)
}

// serveReadyz answers 200 when traffic can flow: the upstream is available
// and the sidecar is not closing; else 503.
func (t *telemetry) serveReadyz(w http.ResponseWriter, closing bool) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	switch {
	case closing:
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("not ready: closing\n"))
	case t.state.available.Load() != 1:
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("not ready: upstream unavailable\n"))
	default:
		_, _ = w.Write([]byte("ready\n"))
	}
}
