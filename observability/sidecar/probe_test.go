package sidecar

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// TestProbeJudgesPingByStatus checks what the probe counts as up: a ping
// answered, even with a JSON-RPC error, is up; a ping answered with an HTTP
// error status is down, whatever its body.
func TestProbeJudgesPingByStatus(t *testing.T) {
	var pingStatus atomic.Int32 // 0: the test server answers
	h := sidecartest.New().Handler()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if code := pingStatus.Load(); code != 0 && json.Unmarshal(body, &m) == nil && m.Method == "ping" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(int(code))
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"broken"}}`, m.ID)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	p, _ := startProxy(t, up.URL, func(c *Config) {
		c.ProbeInterval = 20 * time.Millisecond
		c.ProbeTimeout = time.Second
	})
	available := func() bool { return p.tel.state.available.Load() == 1 }
	waitFor(t, "upstream available", available)

	pingStatus.Store(http.StatusServiceUnavailable)
	waitFor(t, "unavailable on HTTP 503", func() bool { return !available() })
	pingStatus.Store(http.StatusOK)
	waitFor(t, "available again on a JSON-RPC error answer", available)
	pingStatus.Store(http.StatusInternalServerError)
	waitFor(t, "unavailable on HTTP 500", func() bool { return !available() })
	pingStatus.Store(0)
	waitFor(t, "available again", available)
}
