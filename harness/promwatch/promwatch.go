// Package promwatch checks a load run's telemetry with a real Prometheus
// (the observability axis): Prometheus scrapes the sidecar in front of
// every target while the load runs and evaluates the alert rules; after the
// load, a short session of the watcher's own passes each sidecar — a ping, a
// call of an unknown tool, a request for an unknown method — so that the
// error series exist as they would in production; then every Grafana panel
// query and every alert rule must return data (package promcheck), evaluated
// at a moment when each sidecar's latest scrape succeeded.
package promwatch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/promcheck"
	"github.com/thoughtbox-bench/tbbench/observability/prometheus"
	"github.com/thoughtbox-bench/tbbench/observability/promrun"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// Job is the scrape job's name; the alert rules select on it.
const Job = "mcp-sidecar"

// Watcher is a load.Watcher backed by a Prometheus process.
type Watcher struct {
	// Binary is the prometheus executable (default: prometheus on PATH).
	Binary string
	// Dir receives prometheus.yml, alerts.yml, prometheus.log and the
	// transcript of the watcher's own calls (probe.jsonl); the TSDB is
	// removed when the watch ends.
	Dir string
	// Interval is the scrape and rule evaluation interval (default 1 s).
	Interval time.Duration

	srv     *promrun.Server
	up      chan error // the first scrape's outcome, for Ready
	targets []load.Watched
}

var (
	_ load.Watcher = (*Watcher)(nil)
	_ load.Readier = (*Watcher)(nil)
)

func (w *Watcher) interval() time.Duration {
	if w.Interval > 0 {
		return w.Interval
	}
	return time.Second
}

// Start starts Prometheus scraping every target's sidecar; Ready waits for
// the first scrape.
func (w *Watcher) Start(ctx context.Context, targets []load.Watched) error {
	var lines []string
	for _, t := range targets {
		if t.MetricsURL == "" {
			continue
		}
		host := strings.TrimPrefix(strings.TrimSuffix(t.MetricsURL, "/metrics"), "http://")
		lines = append(lines, fmt.Sprintf("      - targets: [%q]\n        labels: {subject: %q}", host, t.Label))
		w.targets = append(w.targets, t)
	}
	if len(lines) == 0 {
		return errors.New("no target has a sidecar serving /metrics over HTTP (stdio targets and direct runs have none)")
	}
	if err := os.MkdirAll(w.Dir, 0o755); err != nil {
		return err
	}
	iv := w.interval()
	config := fmt.Sprintf(`# Written by tbbench load: scrapes the sidecar in front of every target.
global:
  scrape_interval: %s
  evaluation_interval: %s
rule_files: [alerts.yml]
scrape_configs:
  - job_name: %s
    static_configs:
%s
`, iv, iv, Job, strings.Join(lines, "\n"))
	srv, err := promrun.Start(ctx, promrun.Options{Binary: w.Binary, Dir: w.Dir, Config: config,
		Files: map[string][]byte{"alerts.yml": prometheus.Alerts}})
	if err != nil {
		return err
	}
	// Prometheus 2.42 applies its scrape targets about 5 s after it
	// starts: the warm-up runs meanwhile, and Ready waits for the rest.
	w.srv, w.up = srv, make(chan error, 1)
	go func() { w.up <- srv.WaitUp(ctx, Job, 30*time.Second) }()
	return nil
}

// Ready waits until Prometheus has scraped every sidecar; when it cannot,
// it stops Prometheus and says why.
func (w *Watcher) Ready(ctx context.Context) error {
	var err error
	select {
	case err = <-w.up:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		w.srv.Close()
		w.srv = nil
		return fmt.Errorf("Prometheus could not scrape the sidecar: %w", err)
	}
	return nil
}

// Finish passes the watcher's own calls through every sidecar, waits for
// Prometheus to scrape them, evaluates every panel query and alert rule,
// and stops Prometheus.
func (w *Watcher) Finish(ctx context.Context) ([]scorecards.Check, error) {
	if w.srv == nil {
		return nil, errors.New("the watch did not start")
	}
	defer func() {
		w.srv.Close()
		_ = os.RemoveAll(filepath.Join(w.Dir, "data"))
	}()
	var checks []scorecards.Check
	rec, err := transcript.Create(filepath.Join(w.Dir, "probe.jsonl"))
	if err != nil {
		return nil, err
	}
	for _, t := range w.targets {
		c := scorecards.Check{Name: fmt.Sprintf("the watcher's own calls through the %s sidecar", t.Label), Passed: true}
		if err := probe(ctx, t.Target, rec); err != nil {
			c.Passed, c.Detail = false, err.Error()
		}
		checks = append(checks, c)
	}
	rec.Close()
	// Two successful scrapes of every target after the calls (waited for,
	// not a fixed time: on a busy machine a scrape can come late): a rate
	// needs two samples, and the series the calls created have none
	// before. Then a rule evaluation. The queries are evaluated at the
	// moment the second scrapes were the latest, which a scrape failing
	// later cannot hide.
	at, err := w.srv.WaitScrapedTwice(ctx, Job, 30*time.Second)
	if err != nil {
		return checks, err
	}
	time.Sleep(w.interval())
	results, err := promcheck.Check(ctx, w.srv, promcheck.Options{RateInterval: (10 * w.interval()).String(), At: at})
	if err != nil {
		return checks, err
	}
	for _, r := range results {
		checks = append(checks, scorecards.Check{Name: r.Name, Passed: r.OK, NotApplicable: r.NotApplicable, Detail: r.Detail})
	}
	return checks, nil
}

// probe opens one MCP session through the sidecar and sends what a healthy
// load does not: a ping (server/discover in the 2026 era, which has no
// ping), a call of a tool no server has, and a request for a method no
// server knows. Only the session and the ping must succeed; the two
// refusals are what they are meant to be.
func probe(ctx context.Context, t target.Target, rec *transcript.Recorder) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	c, err := target.Connect(ctx, t, rec, target.ConnOptions{})
	if err != nil {
		return fmt.Errorf("opening a session: %w", err)
	}
	defer c.Close()
	if err := c.Ping(ctx); err != nil {
		return err
	}
	_, _ = c.CallTool(ctx, "tbbench_no_such_tool", map[string]any{})
	if _, err := c.Request(ctx, "tbbench/no-such-method", nil); err == nil {
		return errors.New("a request for an unknown method was answered without an error")
	}
	return nil
}
