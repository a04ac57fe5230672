// Package promtest runs the real Prometheus tools in tests: promtool, and a
// Prometheus server on a free loopback port with a temporary configuration
// and storage directory. Missing binaries fail the test (never skip it):
// they come from Debian's prometheus package, which CI installs.
package promtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Binary returns the path of a Prometheus tool, failing the test when it is
// not installed.
func Binary(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not found on PATH: install Debian's prometheus package (apt-get install -y prometheus); CI installs it", name)
	}
	return path
}

// Promtool runs promtool with args in dir and fails the test on a non-zero
// exit, showing its output.
func Promtool(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(Binary(t, "promtool"), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Server is a Prometheus process started for a test.
type Server struct {
	URL string
	Dir string // holds prometheus.yml and the TSDB
}

// Start runs Prometheus with the given configuration (files, such as rule
// files, are written beside it) on a free loopback port, waits until it is
// ready, and kills it when the test ends.
func Start(t testing.TB, config string, files map[string][]byte) *Server {
	t.Helper()
	bin := Binary(t, "prometheus")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin,
		"--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr,
		"--web.enable-lifecycle",
		"--log.level=warn")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		logf.Close()
	})
	s := &Server{URL: "http://" + addr, Dir: dir}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.URL + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
			t.Fatalf("prometheus exited at start:\n%s", log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("prometheus not ready after 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Sample is one element of an instant vector.
type Sample struct {
	Metric map[string]string
	Value  string
}

// Query runs an instant query and returns its samples (a scalar result is
// one sample with no labels). A query Prometheus rejects fails the test.
func (s *Server) Query(t testing.TB, expr string) []Sample {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/v1/query?query="+url.QueryEscape(expr), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "success" {
		t.Fatalf("query %q: %d %s %s", expr, resp.StatusCode, r.Error, body)
	}
	switch r.Data.ResultType {
	case "vector":
		var v []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		}
		if err := json.Unmarshal(r.Data.Result, &v); err != nil {
			t.Fatal(err)
		}
		out := make([]Sample, len(v))
		for i, x := range v {
			out[i] = Sample{Metric: x.Metric, Value: fmt.Sprint(x.Value[1])}
		}
		return out
	case "scalar":
		var v [2]any
		if err := json.Unmarshal(r.Data.Result, &v); err != nil {
			t.Fatal(err)
		}
		return []Sample{{Value: fmt.Sprint(v[1])}}
	}
	t.Fatalf("query %q: unexpected result type %s", expr, r.Data.ResultType)
	return nil
}

// WaitUp waits until every target of job has been scraped successfully
// (Prometheus hands new targets to its scrapers only every 5 s).
func (s *Server) WaitUp(t testing.TB, job string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		up := s.Query(t, `up{job="`+job+`"}`)
		if len(up) > 0 && !slices.ContainsFunc(up, func(x Sample) bool { return x.Value != "1" }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s not up after 30 s: %v", job, up)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
