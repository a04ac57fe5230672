// Package target starts or reaches the server under test and opens recorded
// MCP sessions with it. A target is the embedded reference server (in this
// process over a loopback HTTP listener, or as a child over stdio), a running
// server at a URL, or a server command started as a child over stdio or HTTP.
package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
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
	srv, err := mcpserver.New(cfg, mcpserver.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		return err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	t.onClose(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.CloseSessions(ctx)
		return errors.Join(hs.Shutdown(ctx), srv.Close())
	})
	t.httpURL = "http://" + ln.Addr().String() + mcpserver.MCPPath
	t.handler = srv.Handler()
	t.info.Address = t.httpURL
	return nil
}

func (t *Target) startCommand(ctx context.Context) error {
	port := 0
	if strings.Contains(t.opts.Command, "{port}") || strings.Contains(strings.Join(t.opts.Env, "\n"), "{port}") || t.opts.Transport == "http" {
		p, err := freePort()
		if err != nil {
			return err
		}
		port = p
	}
	sub := func(s string) string { return strings.ReplaceAll(s, "{port}", strconv.Itoa(port)) }
	argv, err := SplitCommand(sub(t.opts.Command))
	if err != nil {
		return err
	}
	if len(argv) == 0 {
		return errors.New("--command is empty")
	}
	for _, e := range t.opts.Env {
		e = sub(e)
		t.env = append(t.env, e)
		if k, v, ok := strings.Cut(e, "="); ok && k == "THOUGHTBOX_DATA_DIR" {
			t.info.DataDir = v
		}
		if k, v, ok := strings.Cut(e, "="); ok && k == "THOUGHTBOX_STORAGE" {
			t.info.Storage = v
		}
		if k, v, ok := strings.Cut(e, "="); ok && k == "THOUGHTBOX_EXPORT_DIR" {
			t.info.ExportDir = v
		}
	}
	if t.info.ExportDir == "" && t.info.DataDir != "" {
		t.info.ExportDir = filepath.Join(t.info.DataDir, "exports")
	}
	t.info.Address = strings.Join(argv, " ")
	if t.opts.Transport == "stdio" {
		t.argv = argv
		return nil
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), t.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logPath := filepath.Join(os.TempDir(), fmt.Sprintf("tbbench-child-%d.log", port))
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.onClose(func() error {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		logFile.Close()
		return os.Remove(logPath)
	})
	url := t.opts.URL
	if url == "" {
		url = "http://127.0.0.1:{port}/mcp"
	}
	t.httpURL = sub(url)
	t.info.Address = t.httpURL + " (" + strings.Join(argv, " ") + ")"
	deadline := time.Now().Add(t.opts.StartTimeout)
	for {
		select {
		case err := <-exited:
			out, _ := os.ReadFile(logPath)
			return fmt.Errorf("server command exited: %v\n%s", err, out)
		default:
		}
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server command did not accept connections on port %d within %s", port, t.opts.StartTimeout)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// probe checks that a URL target answers initialize.
func (t *Target) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, t.opts.StartTimeout)
	defer cancel()
	c, err := t.Connect(ctx, transcript.Discard(), ConnOptions{})
	if err != nil {
		return err
	}
	return c.Close()
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// SplitCommand splits a command line into words; single and double quotes
// group words.
func SplitCommand(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// Sampling says how the harness answers the server's sampling requests.
type Sampling int

// Sampling modes.
const (
	// NoSampling does not declare the sampling capability.
	NoSampling Sampling = iota
	// AnswerSampling declares it and answers every request with a canned critique.
	AnswerSampling
)

// SamplingModel is the model name the harness reports when it answers a
// sampling request.
const SamplingModel = "tbbench-sampler"

// ConnOptions configure one MCP session.
type ConnOptions struct {
	Sampling Sampling
	// Roots, when not nil, declares the roots capability and lists them.
	Roots []mcp.Root
	// Direct bypasses the sidecar for this session.
	Direct bool
}

type sampler struct{ rec *transcript.Recorder }

func (s sampler) CreateMessage(_ context.Context, _ mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant,
		Content: mcp.NewTextContent("Critique from the harness: the step assumes what it should show.")},
		Model: SamplingModel, StopReason: "endTurn"}, nil
}

type roots []mcp.Root

func (r roots) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: r}, nil
}

// Connect opens a new, initialized MCP session recorded in rec: a new HTTP
// session, or, over stdio, a new child process.
func (t *Target) Connect(ctx context.Context, rec *transcript.Recorder, o ConnOptions) (*Conn, error) {
	var inner transport.Interface
	endpoint := t.HTTPURL()
	if o.Direct {
		endpoint = t.httpURL
	}
	switch {
	case t.httpURL != "":
		hopts := []transport.StreamableHTTPCOption{transport.WithHTTPLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}
		if o.Sampling != NoSampling || o.Roots != nil {
			// Server-initiated requests reach the client on the GET stream.
			hopts = append(hopts, transport.WithContinuousListening())
		}
		tr, err := transport.NewStreamableHTTP(endpoint, hopts...)
		if err != nil {
			return nil, err
		}
		inner = tr
	case t.side != nil && !o.Direct:
		tr, err := t.stdioThroughSidecar(rec)
		if err != nil {
			return nil, err
		}
		inner = tr
	default:
		inner = transport.NewStdioWithOptions(t.argv[0], t.env, t.argv[1:], transport.WithCommandFunc(
			func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
				cmd := exec.CommandContext(ctx, command, args...)
				cmd.Env = append(os.Environ(), env...)
				cmd.Stderr = &lineWriter{rec: rec}
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				return cmd, nil
			}))
	}
	rt := record(inner, rec, o.Direct && t.side != nil)
	opts := []client.ClientOption{client.WithProtocolVersion(ProtocolVersion)}
	if o.Sampling == AnswerSampling {
		opts = append(opts, client.WithSamplingHandler(sampler{rec}))
	}
	if o.Roots != nil {
		opts = append(opts, client.WithRootsHandler(roots(o.Roots)))
	}
	c := client.NewClient(rt, opts...)
	// The transport lives as long as the connection, not as long as ctx.
	if err := c.Start(context.Background()); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = ProtocolVersion
	req.Params.ClientInfo = mcp.Implementation{Name: "tbbench", Version: "0.1.0"}
	init, err := c.Initialize(ctx, req)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	conn := &Conn{client: c, tr: rt, rec: rec, init: init}
	// Like MCP clients at start-up, list the tools; a stdio sidecar learns
	// the tool and operation names it may use as labels from this answer.
	if _, err := conn.Request(ctx, "tools/list", map[string]any{}); err != nil {
		c.Close()
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	return conn, nil
}

// lineWriter records a child's stderr in the transcript, one entry per line.
type lineWriter struct {
	rec *transcript.Recorder
	mu  sync.Mutex
	buf []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.rec.Add(transcript.Entry{Kind: transcript.Stderr, Text: string(w.buf[:i])})
		w.buf = w.buf[i+1:]
	}
}
