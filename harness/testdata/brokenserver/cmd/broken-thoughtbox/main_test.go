package main

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
)

func TestParse(t *testing.T) {
	c, err := parse(strings.Fields("--fault costly-thought --storage sqlite --port 18555 --thought-cpu 2ms"), io.Discard)
	if want := (config{fault: brokenserver.CostlyThought, storage: "sqlite", port: 18555, thoughtCPU: 2 * time.Millisecond}); err != nil || c != want {
		t.Errorf("parse = %+v, %v; want %+v", c, err, want)
	}
	c, err = parse(strings.Fields("--port 1"), io.Discard)
	if want := (config{fault: brokenserver.None, storage: "memory", port: 1, thoughtCPU: brokenserver.ThoughtCPU}); err != nil || c != want {
		t.Errorf("parse with defaults = %+v, %v; want %+v", c, err, want)
	}
	for _, f := range append(append([]brokenserver.Fault{}, brokenserver.All...), brokenserver.LoadFaults...) {
		if c, err := parse([]string{"--fault", string(f), "--port", "1"}, io.Discard); err != nil || c.fault != f {
			t.Errorf("--fault %s: %+v, %v", f, c, err)
		}
	}
	for _, bad := range []struct {
		args []string
		says string
	}{
		{[]string{"--fault", "bogus", "--port", "1"}, `--fault "bogus"`},
		{[]string{"--fault", "", "--port", "1"}, `--fault ""`},
		{[]string{"--storage", "postgres", "--port", "1"}, `--storage "postgres"`},
		{[]string{"--fault", "none"}, "--port is required"},
		{[]string{"--port", "0"}, `--port "0"`},
		{[]string{"--port", "http"}, `--port "http"`},
		{[]string{"--port", "1", "--thought-cpu", "-1ms"}, `--thought-cpu "-1ms"`},
		{[]string{"--port", "1", "--thought-cpu", "lots"}, `"lots"`},
		{[]string{"--port", "1", "more"}, `"more"`},
	} {
		if _, err := parse(bad.args, io.Discard); err == nil || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("parse(%q) = %v, want an error saying %s", bad.args, err, bad.says)
		}
	}
}

// TestServesAndStopsOnSIGTERM builds the command, starts it on a free port
// with a fault, opens an MCP session through it and stops it with SIGTERM:
// it must exit 0. A bad flag must exit 2, naming the flag and the value.
func TestServesAndStopsOnSIGTERM(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "broken-thoughtbox")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	var stderr bytes.Buffer
	bad := exec.Command(bin, "--fault", "no-such-fault", "--port", "1")
	bad.Stderr = &stderr
	var exit *exec.ExitError
	if err := bad.Run(); !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), `--fault "no-such-fault"`) {
		t.Errorf("a bad --fault: %v, stderr %q; want exit 2 naming the flag and value", err, stderr.String())
	}

	port := freePort(t)
	logPath := filepath.Join(t.TempDir(), "stderr")
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	logged := func() string { b, _ := os.ReadFile(logPath); return string(b) }
	cmd := exec.Command(bin, "--fault", string(brokenserver.CostlyThought), "--thought-cpu", "1ms", "--port", strconv.Itoa(port))
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			cmd.Process.Kill()
			<-exited
		}
	}()
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer on %s/health: %v; stderr %s", base, err, logged())
		}
		select {
		case err := <-exited:
			stopped = true
			t.Fatalf("the command exited: %v; stderr %s", err, logged())
		case <-time.After(20 * time.Millisecond):
		}
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize",`+
		`"params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"broken-thoughtbox-test","version":"0"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" || !bytes.Contains(body, []byte(`"serverInfo"`)) {
		t.Errorf("initialize: status %d, session %q, %s", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), body)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			t.Errorf("after SIGTERM: %v; stderr %s", err, logged())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10 s after SIGTERM")
	}
}

// freePort returns a port of 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
