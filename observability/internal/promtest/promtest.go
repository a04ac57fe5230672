// Package promtest runs the real Prometheus tools in tests: promtool, and a
// Prometheus server (package promrun) on a free loopback port with a
// temporary configuration and storage directory. Missing binaries fail the
// test (never skip it): they come from Debian's prometheus package, which CI
// installs.
package promtest

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/observability/promrun"
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
	*promrun.Server
}

// Sample is one element of an instant vector.
type Sample = promrun.Sample

// Start runs Prometheus with the given configuration (files, such as rule
// files, are written beside it), waits until it is ready, and kills it when
// the test ends.
func Start(t testing.TB, config string, files map[string][]byte) *Server {
	t.Helper()
	s, err := promrun.Start(context.Background(), promrun.Options{Binary: Binary(t, "prometheus"), Dir: t.TempDir(), Config: config, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &Server{s}
}

// Query runs an instant query and returns its samples; a query Prometheus
// rejects fails the test.
func (s *Server) Query(t testing.TB, expr string) []Sample {
	t.Helper()
	got, err := s.Server.Query(context.Background(), expr)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// QueryAt runs an instant query evaluated at at and returns its samples;
// a query Prometheus rejects fails the test.
func (s *Server) QueryAt(t testing.TB, expr string, at time.Time) []Sample {
	t.Helper()
	got, err := s.Server.QueryAt(context.Background(), expr, at)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// WaitUp waits until every target of job has been scraped successfully.
func (s *Server) WaitUp(t testing.TB, job string) {
	t.Helper()
	if err := s.Server.WaitUp(context.Background(), job, 30*time.Second); err != nil {
		t.Fatal(err)
	}
}
