// Package target starts or reaches the server under test and opens recorded
// MCP sessions with it. A target is the embedded reference server (in this
// process over a loopback HTTP listener, or as a child over stdio), a running
// server at a URL, or a server command started as a child over stdio or HTTP.
package target

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// Kinds of targets.
const (
	Embedded = "embedded"
	URL      = "url"
	Command  = "command"
)

// Options say which server to test and how to reach it.
type Options struct {
	// Kind is Embedded, URL or Command.
	Kind string
	// URL of a Streamable HTTP endpoint (Kind URL), or, for Kind Command with
	// Transport "http", the endpoint of the child, where {port} stands for the
	// port chosen for it (default http://127.0.0.1:{port}/mcp).
	URL string
	// Command is the server command line (Kind Command); {port} is replaced
	// by a free port. Words are split on white space; quote with ' or ".
	Command string
	// Env holds extra KEY=VALUE variables for a child server; {port} is
	// replaced here too.
	Env []string
	// Transport is "http" or "stdio" (Embedded and Command).
	Transport string
	// Storage is the embedded server's backend, "fs" or "memory".
	Storage string
	// DataDir is the embedded server's data directory (default: a fresh
	// temporary directory, removed by Close).
	DataDir string
	// StartTimeout bounds how long a child server may take to accept
	// connections (default 10 s).
	StartTimeout time.Duration
	// ExportDir tells the harness where a server it did not start writes
	// its exports, for the scenarios that check the place (D9).
	ExportDir string
	// Direct talks to the target without the sidecar proxy in between.
	Direct bool
}

// Info describes a started target.
type Info struct {
	Kind      string
	Address   string
	Transport string
	Storage   string
	DataDir   string
	// ExportDir is where the server writes exports, when the harness knows.
	ExportDir string
}

// ErrUnreachable wraps every failure to start or reach the target.
var ErrUnreachable = errors.New("target unreachable")

// Target is a server under test.
type Target struct {
	opts    Options
	info    Info
	httpURL string // the target's own MCP endpoint
	handler http.Handler
	argv    []string
	env     []string
	side    *sidecarFront

	mu      sync.Mutex
	closers []func() error
}

// Start starts or reaches the target.
func Start(ctx context.Context, o Options) (*Target, error) {
	if o.StartTimeout <= 0 {
		o.StartTimeout = 10 * time.Second
	}
	if o.Transport == "" {
		o.Transport = "http"
	}
	if o.Storage == "" {
		o.Storage = "fs"
	}
	t := &Target{opts: o, info: Info{Kind: o.Kind, Transport: o.Transport, ExportDir: o.ExportDir}}
	var err error
	switch o.Kind {
	case Embedded:
		err = t.startEmbedded()
	case URL:
		if o.URL == "" {
			return nil, errors.New("--url needs a URL")
		}
		t.httpURL, t.info.Address, t.info.Transport = o.URL, o.URL, "http"
		err = t.probe(ctx)
	case Command:
		err = t.startCommand(ctx)
	default:
		return nil, fmt.Errorf("unknown target kind %q", o.Kind)
	}
	if err == nil && !o.Direct {
		if t.httpURL != "" {
			err = t.startSidecar(t.httpURL, t.handler)
		} else {
			t.side = &sidecarFront{}
		}
	}
	if err != nil {
		t.Close()
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	return t, nil
}

// Info describes the target.
func (t *Target) Info() Info { return t.info }

// HTTPURL is the MCP endpoint clients of an HTTP target use: the sidecar's,
// or the target's own when the harness talks to it directly ("" for stdio).
func (t *Target) HTTPURL() string {
	if t.side != nil && t.side.url != "" {
		return t.side.url
	}
	return t.httpURL
}

// DirectURL is the target's own MCP endpoint ("" for stdio).
func (t *Target) DirectURL() string { return t.httpURL }

func (t *Target) onClose(f func() error) {
	t.mu.Lock()
	t.closers = append(t.closers, f)
	t.mu.Unlock()
}

// Close stops what Start started, last first.
func (t *Target) Close() error {
	t.mu.Lock()
	closers := t.closers
	t.closers = nil
	t.mu.Unlock()
	var errs []error
	for i := len(closers) - 1; i >= 0; i-- {
		errs = append(errs, closers[i]())
	}
	return errors.Join(errs...)
}

// serveLoopback serves h on a free loopback port until the target closes:
// then before runs, the server shuts down gracefully, and after runs. It
// returns the base URL.
func (t *Target) serveLoopback(h http.Handler, before func(context.Context) error, after func() error) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	t.onClose(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return errors.Join(before(ctx), hs.Shutdown(ctx), after())
	})
	return "http://" + ln.Addr().String(), nil
}

func (t *Target) startEmbedded() error {
	dir := t.opts.DataDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "tbbench-data-")
		if err != nil {
			return err
		}
		dir = tmp
		t.onClose(func() error { return os.RemoveAll(tmp) })
	}
	t.info.Storage, t.info.DataDir, t.info.ExportDir = t.opts.Storage, dir, filepath.Join(dir, "exports")
	if t.opts.Transport == "stdio" {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		t.argv = []string{exe}
		t.env = []string{ServeEnv + "=stdio", "THOUGHTBOX_STORAGE=" + t.opts.Storage, "THOUGHTBOX_DATA_DIR=" + dir,
			"DISABLE_THOUGHT_LOGGING=true", "THOUGHTBOX_CRITIQUE_TIMEOUT=2s"}
		t.info.Address = "embedded reference server over stdio"
		return nil
	}
	cfg := mcpserver.Defaults()
	cfg.Storage, cfg.DataDir, cfg.DisableThoughtLogging = t.opts.Storage, dir, true
	cfg.CritiqueTimeout = 2 * time.Second
	srv, err := mcpserver.New(cfg, mcpserver.WithLogger(quietLogger()))
	if err != nil {
		return err
	}
	base, err := t.serveLoopback(srv.Handler(), func(ctx context.Context) error {
		srv.CloseSessions(ctx)
		return nil
	}, srv.Close)
	if err != nil {
		srv.Close()
		return err
	}
	t.httpURL = base + mcpserver.MCPPath
	t.handler = srv.Handler()
	t.info.Address = t.httpURL
	return nil
}
