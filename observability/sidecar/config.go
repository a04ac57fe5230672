package sidecar

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/trace"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultListen             = "127.0.0.1:4000"
	DefaultServerName         = "upstream"
	DefaultServiceName        = "mcp-sidecar"
	DefaultProbeInterval      = 10 * time.Second
	DefaultProbeTimeout       = 5 * time.Second
	DefaultUpstreamTimeout    = 2 * time.Minute
	DefaultMaxBodyBytes       = 32 << 20
	DefaultSessionIdleTimeout = time.Hour
	// DefaultUpstreamIdleTimeout is shorter than the servers the sidecar
	// usually fronts keep an idle connection (Node's HTTP server 5 s, the
	// reference server 60 s).
	DefaultUpstreamIdleTimeout = 4 * time.Second
)

// Config configures a Proxy or a StdioProxy. Zero values take the defaults
// above.
type Config struct {
	// Upstream is the URL of the upstream MCP endpoint, e.g.
	// http://127.0.0.1:1731/mcp. The proxy serves the MCP endpoint on the
	// same path. Required for Proxy, unused by StdioProxy.
	Upstream string
	// Listen is the address the CLI listens on. The library does not listen
	// by itself: mount Handler where you like.
	Listen string
	// ServerName is the value of the server_name label.
	ServerName string
	// ProbeInterval is the period of the upstream availability probe. A
	// negative value disables the probe; availability then follows the
	// outcome of forwarded traffic.
	ProbeInterval time.Duration
	// ProbeTimeout bounds one probe round.
	ProbeTimeout time.Duration
	// UpstreamTimeout bounds one POST exchange with the upstream, SSE
	// answers included. A negative value means no bound. GET streams are
	// never bounded.
	UpstreamTimeout time.Duration
	// MaxBodyBytes is the largest request body the proxy accepts (413
	// beyond), and the largest message it inspects in an answer.
	MaxBodyBytes int64
	// SessionIdleTimeout is how long a session may stay silent before it no
	// longer counts as active.
	SessionIdleTimeout time.Duration
	// UpstreamIdleTimeout is how long a connection to the upstream stays in
	// the pool unused. It must be shorter than the upstream keeps an idle
	// connection open: a request sent on a connection the upstream is
	// closing fails without an answer, and a proxy must not send a POST
	// again (RFC 9110, 9.2.2), so the client would get a 502 from a server
	// that was up. Unused with a Transport of the caller's.
	UpstreamIdleTimeout time.Duration
	// AllowedHosts are extra Host header values accepted on requests that
	// arrive over loopback, beyond localhost and loopback addresses (DNS
	// rebinding protection; the proxy rewrites Host for the upstream, so it
	// must check it itself).
	AllowedHosts []string
	// ServiceName is the OpenTelemetry service.name resource attribute.
	ServiceName string
	// LegacyMetrics also emits the metric names of releases before the
	// semantic conventions (mcp_requests_total, mcp_upstream_available, ...)
	// besides today's. It will go in the next release.
	LegacyMetrics bool
	// MetricReaders are added to the proxy's MeterProvider besides its own
	// Prometheus reader (which serves /metrics and Counts), e.g. a periodic
	// OTLP reader; Close shuts them down. The library links no exporter:
	// cmd/mcp-sidecar brings OTLP.
	MetricReaders []sdkmetric.Reader
	// Logger receives operational logs. Nil uses slog.Default().
	Logger *slog.Logger
	// TracerProvider creates the per-request spans; nil makes none (and
	// messages pass byte for byte). The caller shuts it down; give it
	// Resource(ServiceName).
	TracerProvider trace.TracerProvider
	// Transport carries requests to the upstream. Nil uses a tuned
	// keep-alive transport; HandlerTransport serves them with an in-process
	// handler instead (no network hop).
	Transport http.RoundTripper
}

// withDefaults returns c with zero fields replaced by defaults.
func (c Config) withDefaults() Config {
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if c.ServerName == "" {
		c.ServerName = DefaultServerName
	}
	if c.ServiceName == "" {
		c.ServiceName = DefaultServiceName
	}
	if c.ProbeInterval == 0 {
		c.ProbeInterval = DefaultProbeInterval
	}
	if c.ProbeTimeout <= 0 {
		c.ProbeTimeout = DefaultProbeTimeout
	}
	if c.UpstreamTimeout == 0 {
		c.UpstreamTimeout = DefaultUpstreamTimeout
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.SessionIdleTimeout <= 0 {
		c.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	if c.UpstreamIdleTimeout <= 0 {
		c.UpstreamIdleTimeout = DefaultUpstreamIdleTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// reservedPaths are served by the proxy itself.
var reservedPaths = map[string]bool{"/metrics": true, "/healthz": true, "/readyz": true}

// CheckUpstream reports what is wrong with Upstream, as New would: a URL
// that is not http(s)://host[:port]/path, or a path the sidecar serves
// itself. A command checks it with its other flags, before it starts.
func (c Config) CheckUpstream() error {
	_, err := c.upstreamURL()
	return err
}

// upstreamURL validates Upstream and returns it parsed, with an empty path
// made "/".
func (c Config) upstreamURL() (*url.URL, error) {
	if c.Upstream == "" {
		return nil, errors.New("sidecar: no upstream URL (flag --upstream or MCP_UPSTREAM_URL)")
	}
	u, err := url.Parse(c.Upstream)
	if err != nil {
		return nil, fmt.Errorf("sidecar: upstream URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("sidecar: upstream URL %q: want http(s)://host[:port]/path", c.Upstream)
	}
	if u.Path == "" {
		u.Path = "/"
	}
	if reservedPaths[strings.TrimSuffix(u.Path, "/")] {
		return nil, fmt.Errorf("sidecar: upstream path %q collides with the sidecar's own endpoints", u.Path)
	}
	return u, nil
}
