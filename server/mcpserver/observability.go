package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/server/events"
	"github.com/thoughtbox-bench/tbbench/server/obsgateway"
)

// EventsConfig configures the JSONL event stream (D20).
type EventsConfig struct {
	// Enabled turns the stream on.
	Enabled bool
	// Dest is stderr (the default), stdout (refused over stdio) or a file
	// path.
	Dest string
	// Queue bounds the events waiting for the destination; more are
	// dropped and counted.
	Queue int
}

func (e EventsConfig) validate(transport string) error {
	var errs []error
	if e.Enabled && strings.TrimSpace(e.Dest) == events.DestStdout && transport == "stdio" {
		errs = append(errs, events.ErrStdoutOverStdio)
	}
	if e.Queue < 1 {
		errs = append(errs, fmt.Errorf("THOUGHTBOX_EVENTS_QUEUE must be at least 1, not %d", e.Queue))
	}
	return errors.Join(errs...)
}

// ObservabilityConfig configures observability_gateway.
type ObservabilityConfig struct {
	// PrometheusURL and GrafanaURL are the services' base URLs.
	PrometheusURL, GrafanaURL string
	// PrometheusTimeout and GrafanaTimeout bound each request to them.
	PrometheusTimeout, GrafanaTimeout time.Duration
}

func (o ObservabilityConfig) validate() error {
	var errs []error
	for _, u := range []struct{ env, v string }{{"PROMETHEUS_URL", o.PrometheusURL}, {"GRAFANA_URL", o.GrafanaURL}} {
		if !strings.HasPrefix(u.v, "http://") && !strings.HasPrefix(u.v, "https://") {
			errs = append(errs, fmt.Errorf("%s must be an http:// or https:// URL, not %q", u.env, u.v))
		}
	}
	if o.PrometheusTimeout <= 0 || o.GrafanaTimeout <= 0 {
		errs = append(errs, errors.New("PROMETHEUS_TIMEOUT and GRAFANA_TIMEOUT must be positive"))
	}
	return errors.Join(errs...)
}

var observabilitySettings = []Setting{
	{"THOUGHTBOX_EVENTS_ENABLED", "events-enabled", "false", "true: write the JSONL event stream (thought_added, thought_revised, branch_created, session_started, session_loaded, session_exported, cipher_loaded, stage_changed)",
		func(c *Config, v string) error {
			b, err := parseBool(v)
			c.Events.Enabled = b
			return err
		}},
	{"THOUGHTBOX_EVENTS_DEST", "events-dest", "stderr", "where events go: stderr, stdout (refused with the stdio transport, whose stdout is the JSON-RPC channel) or a file path (appended; directories created; mode 0600)",
		func(c *Config, v string) error { c.Events.Dest = v; return nil }},
	{"THOUGHTBOX_EVENTS_QUEUE", "events-queue", "4096", "events waiting for a slow destination beyond this many are dropped (and counted) rather than slowing a thought",
		func(c *Config, v string) error {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("not a whole number: %q", v)
			}
			c.Events.Queue = n
			return nil
		}},
	{"PROMETHEUS_URL", "prometheus-url", obsgateway.DefaultPrometheusURL, "Prometheus base URL of observability_gateway (health, metrics, metrics_range, alerts)",
		func(c *Config, v string) error { c.Observability.PrometheusURL = v; return nil }},
	{"PROMETHEUS_TIMEOUT", "prometheus-timeout", "10s", "longest wait for one Prometheus request of observability_gateway",
		durationSetting(func(c *Config) *time.Duration { return &c.Observability.PrometheusTimeout })},
	{"GRAFANA_URL", "grafana-url", obsgateway.DefaultGrafanaURL, "Grafana base URL of observability_gateway (health, dashboard_url)",
		func(c *Config, v string) error { c.Observability.GrafanaURL = v; return nil }},
	{"GRAFANA_TIMEOUT", "grafana-timeout", "5s", "longest wait for one Grafana request of observability_gateway",
		durationSetting(func(c *Config) *time.Duration { return &c.Observability.GrafanaTimeout })},
}

// openEvents starts the event stream when the configuration turns it on.
func (s *Server) openEvents() error {
	s.emitter = events.Nop
	if !s.cfg.Events.Enabled {
		return nil
	}
	sink, closeSink, err := events.OpenSink(s.cfg.Events.Dest, s.cfg.Transport)
	if err != nil {
		return err
	}
	s.stream = events.NewStream(sink, s.cfg.Events.Queue)
	s.closeSink = closeSink
	s.emitter = s.stream
	s.log.Info("event stream enabled", "dest", orDefault(s.cfg.Events.Dest, events.DestStderr))
	return nil
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// closeEvents writes what is queued (waiting at most two seconds for a
// stuck destination) and reports the stream's counts.
func (s *Server) closeEvents() error {
	if s.stream == nil {
		return nil
	}
	s.stream.Close(2 * time.Second)
	st := s.stream.Stats()
	if st.Dropped > 0 || st.Failed > 0 {
		s.log.Warn("event stream lost events", "written", st.Written, "dropped", st.Dropped, "failed", st.Failed)
	}
	return s.closeSink()
}

// EventStats returns the event stream's counts (zero when it is off).
func (s *Server) EventStats() events.Stats {
	if s.stream == nil {
		return events.Stats{}
	}
	return s.stream.Stats()
}

// observabilityHandler answers observability_gateway calls.
func (s *Server) observabilityHandler(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return toResult(s.observability.Call(ctx, rawArguments(req))), nil
}

func (s *Server) newObservability() *obsgateway.Gateway {
	o := s.cfg.Observability
	return obsgateway.New(obsgateway.Config{PrometheusURL: o.PrometheusURL, GrafanaURL: o.GrafanaURL,
		PrometheusTimeout: o.PrometheusTimeout, GrafanaTimeout: o.GrafanaTimeout, Store: s.store, Version: Version})
}
