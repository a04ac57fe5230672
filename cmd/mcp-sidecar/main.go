// Command mcp-sidecar is a transparent, metrics-emitting proxy for MCP
// servers: in front of a Streamable HTTP server (--upstream URL), or around
// a server started as a command and spoken to over stdio (--stdio -- CMD
// ARGS...). Metrics are served on /metrics of --listen, with /healthz and
// /readyz. Every flag has an environment variable; flags win.
//
// The proxy lives in package observability/sidecar; this file only turns
// flags and environment into its Config.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr))
}

// options is what the command line says.
type options struct {
	cfg       sidecar.Config
	otlp      otlpOptions
	stdio     bool
	command   []string
	logLevel  string
	logFormat string
	version   bool
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parse(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "mcp-sidecar:", err)
		return 2
	}
	if o.version {
		fmt.Fprintln(stdout, "mcp-sidecar", sidecar.Version())
		return 0
	}
	log, err := newLogger(stderr, o.logLevel, o.logFormat)
	if err != nil {
		fmt.Fprintln(stderr, "mcp-sidecar:", err)
		return 2
	}
	o.cfg.Logger = log
	stopOTLP, err := o.otlp.setup(ctx, &o.cfg)
	if err != nil {
		fmt.Fprintln(stderr, "mcp-sidecar: OTLP:", err)
		return 1
	}
	defer stopOTLP()
	if o.stdio {
		err = runStdio(ctx, o, stdin, stdout)
	} else {
		err = runHTTP(ctx, o)
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode()
	case err != nil:
		log.Error("mcp-sidecar stopped", "error", err.Error())
		return 1
	}
	return 0
}

func runHTTP(ctx context.Context, o options) error {
	p, err := sidecar.New(o.cfg)
	if err != nil {
		return err
	}
	defer p.Close()
	return sidecar.Serve(ctx, o.cfg.Listen, p.Handler(), o.cfg.Logger, func(a net.Addr) {
		o.cfg.Logger.Info("mcp-sidecar listening", "addr", a.String())
	})
}

func runStdio(ctx context.Context, o options, stdin io.Reader, stdout io.Writer) error {
	cmd := exec.Command(o.command[0], o.command[1:]...)
	cmd.Stderr = os.Stderr
	p, err := sidecar.NewStdio(o.cfg, cmd)
	if err != nil {
		return err
	}
	defer p.Close()
	if o.cfg.Listen != "off" {
		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			if err := sidecar.Serve(sctx, o.cfg.Listen, p.Handler(), o.cfg.Logger, func(a net.Addr) {
				o.cfg.Logger.Info("mcp-sidecar metrics listening", "addr", a.String())
			}); err != nil {
				o.cfg.Logger.Error("metrics listener failed", "error", err.Error())
			}
		}()
	}
	return p.Run(ctx, stdin, stdout)
}

const usage = `mcp-sidecar: a transparent, metrics-emitting proxy for MCP servers.

Usage:
  mcp-sidecar --upstream http://127.0.0.1:1731/mcp [flags]   proxy a Streamable HTTP server
  mcp-sidecar --stdio [flags] -- COMMAND [ARGS...]           wrap a stdio server

The proxied MCP endpoint keeps the upstream URL's path; /metrics, /healthz and
/readyz are served on the same listener (stdio mode: metrics only; --listen off
disables it). Every flag has an environment variable (in brackets); flags win.

Flags:
`

// parse reads flags over environment over defaults.
func parse(args []string, getenv func(string) string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("mcp-sidecar", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	var errs []error
	dur := func(p *time.Duration, name, envName string, def time.Duration, help string) {
		d := def
		if v := getenv(envName); v != "" {
			var err error
			if d, err = time.ParseDuration(v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", envName, err))
			}
		}
		fs.DurationVar(p, name, d, help+" ["+envName+"]")
	}
	c := &o.cfg
	fs.StringVar(&c.Upstream, "upstream", env("MCP_UPSTREAM_URL", ""), "upstream MCP endpoint URL [MCP_UPSTREAM_URL]")
	fs.StringVar(&c.Listen, "listen", env("MCP_SIDECAR_LISTEN", sidecar.DefaultListen), "listen address [MCP_SIDECAR_LISTEN]")
	fs.StringVar(&c.ServerName, "server-name", env("MCP_UPSTREAM_NAME", sidecar.DefaultServerName), "server_name label value [MCP_UPSTREAM_NAME]")
	dur(&c.ProbeInterval, "probe-interval", "MCP_SIDECAR_PROBE_INTERVAL", sidecar.DefaultProbeInterval, "upstream probe period; 0 turns the probe off")
	dur(&c.ProbeTimeout, "probe-timeout", "MCP_SIDECAR_PROBE_TIMEOUT", sidecar.DefaultProbeTimeout, "bound on one probe")
	upTimeout := sidecar.DefaultUpstreamTimeout
	if ms := getenv("MCP_UPSTREAM_TIMEOUT_MS"); ms != "" { // the original sidecar's variable
		n, err := strconv.Atoi(ms)
		if err != nil {
			errs = append(errs, fmt.Errorf("MCP_UPSTREAM_TIMEOUT_MS: %w", err))
		}
		upTimeout = time.Duration(n) * time.Millisecond
	}
	dur(&c.UpstreamTimeout, "upstream-timeout", "MCP_UPSTREAM_TIMEOUT", upTimeout, "bound on one POST exchange, SSE answers included; 0 means none (also MCP_UPSTREAM_TIMEOUT_MS)")
	dur(&c.UpstreamIdleTimeout, "upstream-idle-timeout", "MCP_SIDECAR_UPSTREAM_IDLE_TIMEOUT", sidecar.DefaultUpstreamIdleTimeout, "how long an unused connection to the upstream is kept; must be shorter than the upstream keeps an idle one (Node 5s)")
	maxBody := env("MCP_SIDECAR_MAX_BODY_BYTES", strconv.Itoa(sidecar.DefaultMaxBodyBytes))
	n, err := strconv.ParseInt(maxBody, 10, 64)
	if err != nil {
		errs = append(errs, fmt.Errorf("MCP_SIDECAR_MAX_BODY_BYTES: %w", err))
	}
	fs.Int64Var(&c.MaxBodyBytes, "max-body-bytes", n, "largest request body accepted, and largest answer inspected [MCP_SIDECAR_MAX_BODY_BYTES]")
	dur(&c.SessionIdleTimeout, "session-idle-timeout", "MCP_SIDECAR_SESSION_IDLE_TIMEOUT", sidecar.DefaultSessionIdleTimeout, "silence after which a session stops counting as active")
	hosts := fs.String("allowed-hosts", env("MCP_SIDECAR_ALLOWED_HOSTS", ""), "comma-separated Host values accepted over loopback besides localhost [MCP_SIDECAR_ALLOWED_HOSTS]")
	fs.StringVar(&c.ServiceName, "service-name", env("OTEL_SERVICE_NAME", sidecar.DefaultServiceName), "OpenTelemetry service.name [OTEL_SERVICE_NAME]")
	fs.BoolVar(&o.otlp.on, "otlp", env("MCP_SIDECAR_OTLP", "") == "true", "also push metrics and traces over OTLP/HTTP, configured by OTEL_EXPORTER_OTLP_* [MCP_SIDECAR_OTLP=true]")
	fs.StringVar(&o.otlp.endpoint, "otlp-endpoint", env("MCP_SIDECAR_OTLP_ENDPOINT", ""), "OTLP/HTTP base URL, e.g. http://127.0.0.1:4318; implies --otlp [MCP_SIDECAR_OTLP_ENDPOINT]")
	dur(&o.otlp.interval, "otlp-interval", "MCP_SIDECAR_OTLP_INTERVAL", defaultOTLPInterval, "OTLP metric push period")
	fs.BoolVar(&c.LegacyMetrics, "legacy-metrics", env("MCP_SIDECAR_LEGACY_METRICS", "") == "true", "also emit the metric names of releases before the semantic conventions (mcp_requests_total, ...), for one release [MCP_SIDECAR_LEGACY_METRICS=true]")
	fs.StringVar(&o.logLevel, "log-level", env("MCP_SIDECAR_LOG_LEVEL", env("LOG_LEVEL", "info")), "debug, info, warn or error [MCP_SIDECAR_LOG_LEVEL, LOG_LEVEL]")
	fs.StringVar(&o.logFormat, "log-format", env("MCP_SIDECAR_LOG_FORMAT", "text"), "text or json; logs go to stderr [MCP_SIDECAR_LOG_FORMAT]")
	fs.BoolVar(&o.stdio, "stdio", env("MCP_SIDECAR_STDIO", "") == "true", "run the command after -- and relay its stdio [MCP_SIDECAR_STDIO=true]")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"probe-interval", c.ProbeInterval}, {"probe-timeout", c.ProbeTimeout}, {"upstream-timeout", c.UpstreamTimeout},
		{"session-idle-timeout", c.SessionIdleTimeout}, {"otlp-interval", o.otlp.interval}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("--%s must not be negative, not %s", d.flag, d.v))
		}
	}
	if c.MaxBodyBytes <= 0 {
		errs = append(errs, fmt.Errorf("--max-body-bytes must be positive, not %d", c.MaxBodyBytes))
	}
	if c.UpstreamIdleTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--upstream-idle-timeout must be positive, not %s", c.UpstreamIdleTimeout))
	}
	if err := checkListen(c.Listen, o.stdio); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return o, err
	}
	if *hosts != "" {
		c.AllowedHosts = strings.Split(*hosts, ",")
	}
	if o.otlp.endpoint != "" {
		o.otlp.on = true
	}
	if c.ProbeInterval == 0 {
		c.ProbeInterval = -1 // off
	}
	if c.UpstreamTimeout == 0 {
		c.UpstreamTimeout = -1 // none
	}
	o.command = fs.Args()
	switch {
	case o.version:
	case o.stdio && len(o.command) == 0:
		return o, errors.New("--stdio needs a command after --")
	case !o.stdio && len(o.command) > 0:
		return o, fmt.Errorf("unexpected arguments %q (a command needs --stdio)", o.command)
	case !o.stdio && c.Upstream == "":
		return o, errors.New("no upstream: set --upstream or MCP_UPSTREAM_URL (or use --stdio -- COMMAND)")
	case !o.stdio:
		if err := c.CheckUpstream(); err != nil {
			return o, fmt.Errorf("--upstream: %w", err)
		}
	}
	return o, nil
}

// checkListen checks --listen: HOST:PORT, or off in stdio mode (no
// metrics listener). A port may be a number or a service name.
func checkListen(addr string, stdio bool) error {
	if addr == "off" && stdio {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		want := "HOST:PORT (HOST may be empty, PORT 0 for any free one)"
		if stdio {
			want += ", or off"
		}
		return fmt.Errorf("--listen %q: want %s", addr, want)
	}
	return nil
}

// newLogger returns a stderr logger.
func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: %w", level, err)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", format)
}
