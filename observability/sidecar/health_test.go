package sidecar

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

// serveOn serves a fresh test server on addr ("127.0.0.1:0" for any port).
func serveOn(t *testing.T, addr string) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(sidecartest.New().Handler())
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	return ts
}

func health(t *testing.T, base string) (int, healthReport) {
	t.Helper()
	resp, body := rawDo(t, http.MethodGet, base+"/healthz", "", nil)
	var rep healthReport
	if err := json.Unmarshal([]byte(body), &rep); err != nil {
		t.Fatalf("/healthz body %q: %v", body, err)
	}
	return resp.StatusCode, rep
}

func ready(t *testing.T, base string) int {
	t.Helper()
	resp, _ := rawDo(t, http.MethodGet, base+"/readyz", "", nil)
	return resp.StatusCode
}

// TestProbeFollowsTheUpstream checks the availability gauge, /healthz and
// /readyz through an upstream's life: up (a stateful server, which a
// sessionless probe could not reach), killed, and restarted on the same
// address (where the probe's old session is unknown and it must
// re-initialize).
func TestProbeFollowsTheUpstream(t *testing.T) {
	up := serveOn(t, "127.0.0.1:0")
	addr := up.Listener.Addr().String()
	p, px := startProxy(t, up.URL, func(c *Config) {
		c.ProbeInterval = 30 * time.Millisecond
		c.ProbeTimeout = time.Second
	})

	waitFor(t, "upstream available", func() bool { return p.tel.state.available.Load() == 1 })
	code, rep := health(t, px.URL)
	if code != 200 || rep.Status != "ok" || rep.Upstream != "up" || rep.LastSuccess == nil || rep.Probe != "active" {
		t.Errorf("/healthz while up: %d %+v", code, rep)
	}
	if ready(t, px.URL) != 200 {
		t.Error("/readyz while up is not 200")
	}
	m := scrape(t, px.URL)
	wantSeries(t, m, `mcp_sidecar_upstream_available{server_name="test"} 1`)
	if hasSeries(t, m, `mcp_sidecar_upstream_last_success_seconds{server_name="test"} 0`) {
		t.Error("last success timestamp still 0 while up")
	}
	// The probe's traffic is its own, not client traffic.
	if n := p.Counts().Total(); n != 0 {
		t.Errorf("probe traffic counted as %d client requests", n)
	}

	up.Close()
	waitFor(t, "upstream unavailable", func() bool { return p.tel.state.available.Load() == 0 })
	code, rep = health(t, px.URL)
	if code != 503 || rep.Status != "degraded" || rep.Upstream != "down" || rep.LastSuccess == nil {
		t.Errorf("/healthz while down: %d %+v", code, rep)
	}
	if ready(t, px.URL) != 503 {
		t.Error("/readyz while down is not 503")
	}
	wantSeries(t, scrape(t, px.URL), `mcp_sidecar_upstream_available{server_name="test"} 0`)
	if !hasSeries(t, scrape(t, px.URL), `mcp_sidecar_upstream_check_duration_seconds_count{result="fail",server_name="test"}`) {
		t.Error("failed probes not recorded")
	}

	again := serveOn(t, addr)
	defer again.Close()
	waitFor(t, "upstream available after restart", func() bool { return p.tel.state.available.Load() == 1 })
}

// TestProbeLearnsVocabulary checks that the probe's handshake lists the
// tools, so that a client that never lists them still gets its calls
// labelled by tool and operation.
func TestProbeLearnsVocabulary(t *testing.T) {
	up := startUpstream(t)
	p, px := startProxy(t, up.URL, func(c *Config) { c.ProbeInterval = time.Hour })
	waitFor(t, "probe handshake", func() bool { return p.tel.state.available.Load() == 1 })
	c := newClient(t, px.URL)
	callTool(t, c, sidecartest.GatewayTool, map[string]any{"operation": "start_new"})
	callTool(t, c, sidecartest.GatewayTool, map[string]any{"operation": "not_in_enum"})
	got := p.Counts().ToolCalls
	for k, n := range map[ToolCall]int64{
		{sidecartest.GatewayTool, "start_new", outcome.OK}:  1,
		{sidecartest.GatewayTool, Other, outcome.ToolError}: 1,
	} {
		if got[k] != n {
			t.Errorf("tool calls %+v = %d, want %d (all: %v)", k, got[k], n, got)
		}
	}
	if _, ok := p.tel.vocab.snap.Load().schemes["test"]; !ok {
		t.Error("resource scheme not learned from resources/list")
	}
	if _, ok := p.tel.vocab.snap.Load().prompts[sidecartest.PromptName]; !ok {
		t.Error("prompt not learned from prompts/list")
	}
}

// TestPassiveAvailability checks availability without a probe: it follows
// forwarded traffic.
func TestPassiveAvailability(t *testing.T) {
	up := startUpstream(t)
	p, px := startProxy(t, up.URL, nil)
	if p.tel.state.available.Load() != 0 || ready(t, px.URL) != 503 {
		t.Error("passive proxy claims availability before any traffic")
	}
	newClient(t, px.URL)
	if p.tel.state.available.Load() != 1 || ready(t, px.URL) != 200 {
		t.Error("passive proxy not available after a good exchange")
	}
	if code, rep := health(t, px.URL); code != 200 || rep.Probe != "passive" {
		t.Errorf("/healthz: %d %+v", code, rep)
	}
}

// TestReadyzWhileClosing checks that a closing proxy stops being ready.
func TestReadyzWhileClosing(t *testing.T) {
	up := startUpstream(t)
	p, px := startProxy(t, up.URL, func(c *Config) { c.ProbeInterval = time.Hour })
	waitFor(t, "available", func() bool { return p.tel.state.available.Load() == 1 })
	p.closing.Store(true)
	if ready(t, px.URL) != 503 {
		t.Error("/readyz 200 while closing")
	}
}
