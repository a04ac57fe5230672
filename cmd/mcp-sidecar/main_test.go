//go:build !race

// Built without the race detector only: this command links the OTLP
// exporters, and with them gRPC and protobuf (120 packages that nothing
// else race-tested imports), which the race-detected build would compile
// again. make test runs these tests beside the race-detected run (the
// Makefile's PLAIN_ONLY); the sidecar itself is race-tested in
// observability/sidecar.

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
)

const stdioServerEnv = "MCP_SIDECAR_TEST_STDIO_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(stdioServerEnv) == "1" {
		_ = server.ServeStdio(sidecartest.New().MCP)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFlagsOverEnvOverDefaults(t *testing.T) {
	env := envOf(map[string]string{
		"MCP_UPSTREAM_URL": "http://127.0.0.1:1731/mcp", "MCP_SIDECAR_LISTEN": "127.0.0.1:5000",
		"MCP_UPSTREAM_NAME": "thoughtbox", "MCP_SIDECAR_PROBE_INTERVAL": "3s", "MCP_UPSTREAM_TIMEOUT_MS": "60000",
		"MCP_SIDECAR_ALLOWED_HOSTS": "a.internal,b.internal", "MCP_SIDECAR_OTLP_ENDPOINT": "http://127.0.0.1:4318",
		"LOG_LEVEL": "debug", "MCP_SIDECAR_LEGACY_METRICS": "true", "MCP_SIDECAR_UPSTREAM_IDLE_TIMEOUT": "2s",
	})
	o, err := parse([]string{"--listen", "127.0.0.1:6000", "--probe-interval", "0"}, env, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	c := o.cfg
	for name, pair := range map[string][2]any{
		"upstream":        {c.Upstream, "http://127.0.0.1:1731/mcp"},
		"listen (flag)":   {c.Listen, "127.0.0.1:6000"},
		"server name":     {c.ServerName, "thoughtbox"},
		"probe off":       {c.ProbeInterval, time.Duration(-1)},
		"timeout (ms)":    {c.UpstreamTimeout, time.Minute},
		"allowed hosts":   {fmt.Sprint(c.AllowedHosts), "[a.internal b.internal]"},
		"otlp endpoint":   {o.otlp.endpoint, "http://127.0.0.1:4318"},
		"otlp implied":    {o.otlp.on, true},
		"legacy metrics":  {c.LegacyMetrics, true},
		"log level":       {o.logLevel, "debug"},
		"default probe t": {c.ProbeTimeout, sidecar.DefaultProbeTimeout},
		"default body":    {c.MaxBodyBytes, int64(sidecar.DefaultMaxBodyBytes)},
		"upstream idle":   {c.UpstreamIdleTimeout, 2 * time.Second},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s = %v, want %v", name, pair[0], pair[1])
		}
	}
	o, err = parse(nil, envOf(map[string]string{"MCP_UPSTREAM_URL": "http://x/mcp"}), io.Discard)
	if err != nil || o.cfg.Listen != sidecar.DefaultListen || o.cfg.ServerName != sidecar.DefaultServerName || o.cfg.ProbeInterval != sidecar.DefaultProbeInterval ||
		o.cfg.LegacyMetrics || o.otlp.on || o.cfg.UpstreamIdleTimeout != sidecar.DefaultUpstreamIdleTimeout {
		t.Errorf("defaults: %+v %v", o.cfg, err)
	}
}

func TestBadInvocations(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, nil, "no upstream"},
		{[]string{"--stdio"}, nil, "needs a command"},
		{[]string{"--upstream", "http://x/mcp", "extra"}, nil, "unexpected arguments"},
		{[]string{"--upstream", "http://x/mcp"}, map[string]string{"MCP_SIDECAR_PROBE_INTERVAL": "often"}, "MCP_SIDECAR_PROBE_INTERVAL"},
		{[]string{"--upstream", "ftp://x/mcp"}, nil, "want http(s)"},
		{[]string{"--upstream", "http://x/metrics"}, nil, "collides"},
		{[]string{"--upstream", "http://x/mcp", "--log-level", "loud"}, nil, "log level"},
		{[]string{"--upstream", "http://x/mcp", "--max-body-bytes", "-1"}, nil, "--max-body-bytes must be positive, not -1"},
		{[]string{"--upstream", "http://x/mcp", "--upstream-timeout", "-1s"}, nil, "--upstream-timeout must not be negative, not -1s"},
		{[]string{"--upstream", "http://x/mcp"}, map[string]string{"MCP_SIDECAR_SESSION_IDLE_TIMEOUT": "-5s"}, "--session-idle-timeout must not be negative, not -5s"},
		{[]string{"--upstream", "http://x/mcp", "--upstream-idle-timeout", "0s"}, nil, "--upstream-idle-timeout must be positive, not 0s"},
		{[]string{"--upstream", "http://x/mcp"}, map[string]string{"MCP_SIDECAR_UPSTREAM_IDLE_TIMEOUT": "-1s"}, "--upstream-idle-timeout must be positive, not -1s"},
		{[]string{"--upstream", "http://x/mcp"}, map[string]string{"MCP_SIDECAR_UPSTREAM_IDLE_TIMEOUT": "soon"}, "MCP_SIDECAR_UPSTREAM_IDLE_TIMEOUT"},
		{[]string{"--upstream", "http://x/mcp", "--listen", "4000"}, nil, `--listen "4000": want HOST:PORT`},
		{[]string{"--upstream", "http://x/mcp", "--listen", ":99999"}, nil, `--listen ":99999"`},
		{[]string{"--upstream", "http://x/mcp", "--listen", "off"}, nil, `--listen "off"`},
		{[]string{"--stdio", "--listen", "127.0.0.1", "--", "cat"}, nil, `--listen "127.0.0.1": want HOST:PORT (HOST may be empty, PORT 0 for any free one), or off`},
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), c.args, envOf(c.env), strings.NewReader(""), io.Discard, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v %v: exit %d, stderr %q; want exit 2 mentioning %q", c.args, c.env, code, stderr.String(), c.want)
		}
	}
}

func TestHelp(t *testing.T) {
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, envOf(nil), nil, io.Discard, &stderr); code != 0 {
		t.Errorf("--help exit %d", code)
	}
	for _, want := range []string{"--stdio", "MCP_UPSTREAM_URL", "MCP_SIDECAR_LISTEN", "MCP_UPSTREAM_NAME", "/metrics", "/readyz", "-probe-interval"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestHTTPModeEndToEnd runs the command in front of a test server.
func TestHTTPModeEndToEnd(t *testing.T) {
	up := httptest.NewServer(sidecartest.New().Handler())
	defer up.Close()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"--upstream", up.URL + "/mcp", "--listen", addr, "--probe-interval", "50ms",
			"--server-name", "e2e", "--log-level", "error"}, envOf(nil), nil, io.Discard, io.Discard)
	}()
	base := "http://" + addr
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil && resp.StatusCode == 200 {
			resp.Body.Close()
			break
		}
		if resp != nil {
			resp.Body.Close()
		}
		if time.Now().After(deadline) {
			t.Fatal("never ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize through the command: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(metrics), `mcp_server_operation_duration_seconds_count{mcp_method_name="initialize",mcp_protocol_version="2025-11-25",network_protocol_name="http",network_transport="tcp",server_name="e2e"} 1`) {
		t.Error("initialize not counted on /metrics")
	}
	cancel()
	select {
	case code := <-exited:
		if code != 0 {
			t.Errorf("exit %d after shutdown", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no shutdown")
	}
}

// TestStdioModeEndToEnd wraps the test binary as a stdio server.
func TestStdioModeEndToEnd(t *testing.T) {
	t.Setenv(stdioServerEnv, "1")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	exited := make(chan int, 1)
	go func() {
		exited <- run(context.Background(), []string{"--stdio", "--listen", "off", "--", os.Args[0]}, envOf(nil), inR, outW, &stderr)
		outW.Close()
	}()
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e","version":"1"}}}`)
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.Contains(line, `"serverInfo":{"name":"sidecartest"`) {
		t.Fatalf("initialize answer %q %v", line, err)
	}
	inW.Close()
	select {
	case code := <-exited:
		if code != 0 {
			t.Errorf("exit %d; stderr %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("did not exit after stdin closed")
	}
	if strings.Contains(stderr.String(), "clientInfo") {
		t.Error("request content in the logs")
	}
}
