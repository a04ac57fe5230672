package observatory

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// pagePath is the page's second address (besides /).
const pagePath = "/observatory"

// ServeHTTP serves the Observatory's one port: the page (/ and
// /observatory), the WebSocket endpoint (Config.Path), and the REST API
// under /api/ when Config.HTTPAPI is set. Every answer carries the CORS
// headers; OPTIONS gets 204; anything else 404 with a JSON body.
func (o *Observatory) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if o.cfg.HostAllowed != nil && !o.cfg.HostAllowed(r.Host) {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "Invalid Host header: " + r.Host})
		return
	}
	o.cors(w, r)
	if r.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	p := r.URL.Path
	switch {
	case p == o.cfg.Path:
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			writeJSON(w, http.StatusUpgradeRequired, map[string]string{"error": "This is the Observatory's WebSocket endpoint: open it with a WebSocket client"})
			return
		}
		o.serveWS(w, r)
	case r.Method != http.MethodGet:
		notFound(w)
	case p == "/" || p == pagePath:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", pagePolicy)
		_, _ = w.Write(o.page)
	case !o.cfg.HTTPAPI:
		notFound(w)
	case p == "/api/health":
		o.mu.Lock()
		conns, active := len(o.clients), o.store.active()
		o.mu.Unlock()
		writeJSON(w, http.StatusOK, struct {
			Status         string `json:"status"`
			Connections    int    `json:"connections"`
			ActiveSessions int    `json:"activeSessions"`
		}{"ok", conns, active})
	case p == "/api/sessions":
		o.listSessions(w, r)
	case strings.HasPrefix(p, "/api/sessions/"):
		o.getSession(w, strings.TrimPrefix(p, "/api/sessions/"))
	default:
		notFound(w)
	}
}

// cors sets the CORS headers: * when the list has it; else the request's
// Origin when listed; else the first listed origin.
func (o *Observatory) cors(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	allow := o.cfg.CORS[0]
	if slices.Contains(o.cfg.CORS, "*") {
		allow = "*"
	} else {
		if origin := r.Header.Get("Origin"); slices.Contains(o.cfg.CORS, origin) {
			allow = origin
		}
		h.Set("Vary", "Origin")
	}
	h.Set("Access-Control-Allow-Origin", allow)
	h.Set("Access-Control-Allow-Methods", "GET, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Content-Type")
}

func (o *Observatory) listSessions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	status := q.Get("status")
	if status != "" && status != "all" && status != StatusActive && status != StatusCompleted && status != StatusAbandoned {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "status must be one of active, completed, abandoned, all"})
		return
	}
	limit, offset := 50, 0
	for _, f := range []struct {
		name string
		to   *int
	}{{"limit", &limit}, {"offset", &offset}} {
		if v := q.Get(f.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": f.name + " must be a whole number ≥ 0, not " + strconv.Quote(v)})
				return
			}
			*f.to = n
		}
	}
	o.mu.Lock()
	list := o.store.list(status, min(limit, o.cfg.MaxSessions), offset)
	o.mu.Unlock()
	writeJSON(w, http.StatusOK, sessionList{Sessions: list})
}

func (o *Observatory) getSession(w http.ResponseWriter, id string) {
	o.mu.Lock()
	snap, ok := o.store.snapshot(id)
	o.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "Session not found"})
		return
	}
	writeJSON(w, http.StatusOK, snap)
}

func notFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, map[string]string{"error": "Not found"})
}

// writeJSON writes v as compact JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"cannot encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
