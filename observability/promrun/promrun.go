// Package promrun runs a real Prometheus server for a while — on a free
// loopback port, with a configuration and TSDB in a directory of its own —
// and queries it over its HTTP API. The harness uses it to check the
// sidecar's telemetry after a load run, and the observability tests use it
// through their test helper.
package promrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrNotInstalled is returned by Start when the prometheus binary cannot be
// found.
var ErrNotInstalled = errors.New("prometheus not found: install Debian's prometheus package (apt-get install -y prometheus)")

// Options configure Start.
type Options struct {
	// Binary is the prometheus executable (default: "prometheus" on PATH).
	Binary string
	// Dir receives prometheus.yml, Files, the TSDB and prometheus.log. It
	// must exist.
	Dir string
	// Config is the content of prometheus.yml.
	Config string
	// Files are written beside prometheus.yml (rule files, for example).
	Files map[string][]byte
	// ReadyTimeout bounds the wait for /-/ready (default 30 s).
	ReadyTimeout time.Duration
}

// Server is a running Prometheus process.
type Server struct {
	// URL is its HTTP API's base, e.g. http://127.0.0.1:40123.
	URL string
	// Dir holds its configuration, TSDB and log.
	Dir string

	cmd    *exec.Cmd
	exited chan struct{}
	log    *os.File
}

// Start runs Prometheus and waits until it is ready.
func Start(ctx context.Context, o Options) (*Server, error) {
	bin := o.Binary
	if bin == "" {
		bin = "prometheus"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("%w (looked for %q)", ErrNotInstalled, bin)
	}
	if o.Dir, err = filepath.Abs(o.Dir); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(o.Dir, "prometheus.yml"), []byte(o.Config), 0o644); err != nil {
		return nil, err
	}
	for name, b := range o.Files {
		if err := os.WriteFile(filepath.Join(o.Dir, name), b, 0o644); err != nil {
			return nil, err
		}
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(o.Dir, "prometheus.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path,
		"--config.file="+filepath.Join(o.Dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(o.Dir, "data"),
		"--web.listen-address="+addr,
		"--web.enable-lifecycle",
		"--log.level=warn")
	cmd.Dir = o.Dir
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	s := &Server{URL: "http://" + addr, Dir: o.Dir, cmd: cmd, exited: make(chan struct{}), log: logf}
	go func() { _ = cmd.Wait(); close(s.exited) }()
	wait := o.ReadyTimeout
	if wait <= 0 {
		wait = 30 * time.Second
	}
	if err := s.awaitReady(ctx, wait); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func (s *Server) awaitReady(ctx context.Context, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/-/ready", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.exited:
			return fmt.Errorf("prometheus exited at start: %s", s.Log())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("prometheus not ready after %s: %s", wait, s.Log())
		}
	}
}

// Log returns what Prometheus has written to its log so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "prometheus.log"))
	return strings.TrimSpace(string(b))
}

// Close stops Prometheus (SIGKILL: its data is not needed afterwards).
func (s *Server) Close() error {
	_ = s.cmd.Process.Kill()
	<-s.exited
	return s.log.Close()
}

// Sample is one element of an instant vector (a scalar result is one sample
// with no labels).
type Sample struct {
	Metric map[string]string
	Value  string
}

// Float is the sample's value as a number (NaN when it does not parse).
func (s Sample) Float() float64 {
	f, err := strconv.ParseFloat(s.Value, 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// Query runs an instant query now.
func (s *Server) Query(ctx context.Context, expr string) ([]Sample, error) {
	return s.QueryAt(ctx, expr, time.Time{})
}

// QueryAt runs an instant query evaluated at t (now when t is zero). A
// query Prometheus rejects is an error carrying its message.
func (s *Server) QueryAt(ctx context.Context, expr string, t time.Time) ([]Sample, error) {
	q := url.Values{"query": {expr}}
	if !t.IsZero() {
		q.Set("time", seconds(t))
	}
	var data struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	}
	if err := s.get(ctx, "/api/v1/query?"+q.Encode(), &data); err != nil {
		return nil, fmt.Errorf("query %s: %w", expr, err)
	}
	switch data.ResultType {
	case "vector":
		var v []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		}
		if err := json.Unmarshal(data.Result, &v); err != nil {
			return nil, err
		}
		out := make([]Sample, len(v))
		for i, x := range v {
			out[i] = Sample{Metric: x.Metric, Value: fmt.Sprint(x.Value[1])}
		}
		return out, nil
	case "scalar":
		var v [2]any
		if err := json.Unmarshal(data.Result, &v); err != nil {
			return nil, err
		}
		return []Sample{{Value: fmt.Sprint(v[1])}}, nil
	}
	return nil, fmt.Errorf("query %s: result type %s, want a vector or a scalar", expr, data.ResultType)
}

// Rule is one rule as Prometheus evaluates it (/api/v1/rules).
type Rule struct {
	Name      string `json:"name"`
	Query     string `json:"query"`
	Type      string `json:"type"`
	Health    string `json:"health"`
	LastError string `json:"lastError"`
	State     string `json:"state"`
}

// Rules returns every loaded rule, group by group.
func (s *Server) Rules(ctx context.Context) ([]Rule, error) {
	var data struct {
		Groups []struct {
			Rules []Rule `json:"rules"`
		} `json:"groups"`
	}
	if err := s.get(ctx, "/api/v1/rules", &data); err != nil {
		return nil, err
	}
	var out []Rule
	for _, g := range data.Groups {
		out = append(out, g.Rules...)
	}
	return out, nil
}

// get calls the API and decodes the envelope's data into v.
func (s *Server) get(ctx context.Context, path string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var env struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return fmt.Errorf("HTTP %d, not a Prometheus answer: %.200s", resp.StatusCode, body)
	}
	if env.Status != "success" {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, env.Error)
	}
	return json.Unmarshal(env.Data, v)
}

// WaitUp waits until job has targets and every one of them has been
// scraped successfully (Prometheus hands new targets to its scrapers only
// every few seconds).
func (s *Server) WaitUp(ctx context.Context, job string, wait time.Duration) error {
	return s.waitFor(ctx, wait, `up{job="`+job+`"}`, func(up []Sample) bool {
		return len(up) > 0 && !slices.ContainsFunc(up, func(x Sample) bool { return x.Value != "1" })
	})
}

// WaitScrapedAfter waits until every target of job has been scraped
// successfully at or after t, so that what happened before t is in the
// TSDB, and returns a moment at which an instant query sees those scrapes.
//
// Query at that moment, not at "now": a scrape that fails (a busy machine
// can miss a one-second scrape timeout) marks every series of its target
// stale from the time it began, so a gauge vanishes from an instant query
// evaluated after it although the TSDB holds its value. The moment
// returned is one at which every target's latest sample comes from a
// successful scrape, checked again once every target has been scraped
// after it: a target's scrapes run one after another, so no scrape that
// began by then can still change what a query there sees.
func (s *Server) WaitScrapedAfter(ctx context.Context, job string, t time.Time, wait time.Duration) (time.Time, error) {
	deadline := time.Now().Add(wait)
	for {
		at := time.Now().Truncate(time.Millisecond)
		ok, err := s.scrapedAt(ctx, job, t, at)
		if err == nil && ok {
			err = s.waitFor(ctx, time.Until(deadline), fmt.Sprintf(`timestamp(up{job=%q}) <= %s`, job, seconds(at)),
				func(behind []Sample) bool { return len(behind) == 0 })
			if err == nil {
				ok, err = s.scrapedAt(ctx, job, t, at)
			}
		}
		switch {
		case err != nil:
			return time.Time{}, err
		case ok:
			return at, nil
		case time.Now().After(deadline):
			return time.Time{}, fmt.Errorf("not every %s target was scraped successfully within %s after %s", job, wait, t.Format(time.RFC3339Nano))
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// WaitScrapedTwice waits for two successful scrapes of every target of job
// after now, so that a rate over what happened before now has its second
// sample, and returns the moment at which the second scrapes are the latest
// (WaitScrapedAfter): the moment to evaluate queries at.
func (s *Server) WaitScrapedTwice(ctx context.Context, job string, wait time.Duration) (time.Time, error) {
	first, err := s.WaitScrapedAfter(ctx, job, time.Now(), wait)
	if err != nil {
		return time.Time{}, err
	}
	return s.WaitScrapedAfter(ctx, job, first.Add(time.Millisecond), wait)
}

// scrapedAt says whether, at the moment at, job has targets and each one's
// latest sample comes from a successful scrape that began at or after t.
func (s *Server) scrapedAt(ctx context.Context, job string, t, at time.Time) (bool, error) {
	up, err := s.QueryAt(ctx, fmt.Sprintf(`up{job=%q}`, job), at)
	if err != nil || len(up) == 0 || slices.ContainsFunc(up, func(x Sample) bool { return x.Value != "1" }) {
		return false, err
	}
	before, err := s.QueryAt(ctx, fmt.Sprintf(`timestamp(up{job=%q}) < %s`, job, seconds(t)), at)
	return err == nil && len(before) == 0, err
}

// seconds writes t as PromQL's seconds since the epoch, to the millisecond.
func seconds(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64)
}

func (s *Server) waitFor(ctx context.Context, wait time.Duration, expr string, done func([]Sample) bool) error {
	deadline := time.Now().Add(wait)
	for {
		got, err := s.Query(ctx, expr)
		if err != nil {
			return err
		}
		if done(got) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still %s after %s: %v", expr, wait, got)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
