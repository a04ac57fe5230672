// Package embedded starts the reference server as a target: in this process
// behind a loopback HTTP listener, or as a child process over stdio or HTTP
// (the thoughtbox command built beside this binary from the same commit, or
// this binary run again with ServeEnv: program.go). It is the only package
// of the harness that imports server/.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// Options configure the embedded reference server.
type Options struct {
	// Transport is target.HTTP (default) or target.Stdio.
	Transport string
	// Storage is "fs" (default), "memory" or "sqlite".
	Storage string
	// DataDir is the data directory (default: a fresh temporary directory,
	// removed by Close).
	DataDir string
	// Process runs an HTTP server as a child process instead of in this
	// process, so that its CPU and memory can be measured apart from the
	// harness's. Over stdio every session is a child anyway.
	Process bool
	// Env holds extra KEY=VALUE settings of the server (its environment
	// variables or flag names), for a child or in this process.
	Env []string
	// Observatory starts the server with its Observatory on, on a port of
	// its own (target.Observed says where).
	Observatory bool
	// Program is the thoughtbox command of another build of the reference
	// server to run instead of this build's, as a child process, with the
	// same settings (for an A/B of two builds: tbbench load --base-build).
	// It must read the settings this build's does (THOUGHTBOX_TRANSPORT,
	// _STORAGE, _DATA_DIR, PORT). "" runs this build's.
	Program string
}

// CritiqueTimeout is the embedded server's sampling timeout: the harness
// answers sampling at once or not at all.
const CritiqueTimeout = 2 * time.Second

// New starts the embedded reference server.
func New(ctx context.Context, o Options) (target.Target, error) {
	if o.Transport == "" {
		o.Transport = target.HTTP
	}
	if o.Storage == "" {
		o.Storage = "fs"
	}
	if o.Transport != target.HTTP && o.Transport != target.Stdio {
		return nil, fmt.Errorf("%w: transport must be %s or %s, not %q", target.ErrUnreachable, target.HTTP, target.Stdio, o.Transport)
	}
	dir, cleanup := o.DataDir, func() error { return nil }
	if dir == "" {
		tmp, err := os.MkdirTemp("", "tbbench-data-")
		if err != nil {
			return nil, fmt.Errorf("%w: %v", target.ErrUnreachable, err)
		}
		dir, cleanup = tmp, func() error { return os.RemoveAll(tmp) }
	}
	var t target.Target
	var err error
	if o.Transport == target.Stdio || o.Process || o.Program != "" {
		t, err = newChild(ctx, o, dir, cleanup)
	} else {
		t, err = newInProcess(o, dir, cleanup)
	}
	if err != nil {
		cleanup()
		return nil, err
	}
	return t, nil
}

// childEnv is the environment of a child reference server that runs p and
// serves over mode (stdio or http).
func childEnv(o Options, dir, mode string, p program) []string {
	serve := ServeEnv + "=" + mode
	if !p.own {
		serve = "THOUGHTBOX_TRANSPORT=" + mode
	}
	env := []string{serve, "THOUGHTBOX_STORAGE=" + o.Storage, "THOUGHTBOX_DATA_DIR=" + dir,
		"DISABLE_THOUGHT_LOGGING=true", "THOUGHTBOX_CRITIQUE_TIMEOUT=" + CritiqueTimeout.String()}
	if mode == "http" {
		env = append(env, "PORT={port}")
	}
	if o.Observatory {
		env = append(env, observatoryEnv(target.ObsPortPlaceholder)...)
	}
	if p.own {
		env = append(env, target.SelfChildEnv()...)
	}
	return append(env, o.Env...)
}

// child is the reference server run as a child process (see program.go), by
// way of a command target.
type child struct {
	target.Target
	cleanup func() error
	program program
}

func newChild(ctx context.Context, o Options, dir string, cleanup func() error) (target.Target, error) {
	var p program
	var err error
	if o.Program != "" {
		p, err = otherBuild(o.Program)
	} else {
		p, err = serverProgram()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", target.ErrUnreachable, err)
	}
	mode := "stdio"
	if o.Transport == target.HTTP {
		mode = "http"
	}
	ct, err := target.NewCommand(ctx, target.CommandOptions{Argv: []string{p.path}, Env: childEnv(o, dir, mode, p), Transport: o.Transport, Kind: target.KindEmbedded})
	if err != nil {
		return nil, err
	}
	return &child{Target: ct, cleanup: cleanup, program: p}, nil
}

func (c *child) Info() target.Info {
	i := c.Target.Info()
	i.Address = "embedded reference server, child process over " + i.Transport
	if !c.program.own {
		i.Address += " (" + c.program.path + ")"
	}
	return i
}

// The child forwards the command target's optional abilities.
func (c *child) Command(rec *transcript.Recorder) *exec.Cmd {
	return c.Target.(target.Commander).Command(rec)
}
func (c *child) PID() int { return c.Target.(target.Processer).PID() }
func (c *child) Restart(ctx context.Context, kill bool) error {
	return c.Target.(target.Restarter).Restart(ctx, kill)
}
func (c *child) RestartWhileStopped(ctx context.Context, kill bool, stopped func() error) error {
	return c.Target.(target.StoppedRestarter).RestartWhileStopped(ctx, kill, stopped)
}

// Sibling starts another child reference server on the same data.
func (c *child) Sibling(ctx context.Context) (target.Target, error) {
	s, err := c.Target.(target.Sibling).Sibling(ctx)
	if err != nil {
		return nil, err
	}
	return &child{Target: s, cleanup: func() error { return nil }, program: c.program}, nil
}
func (c *child) Close() error { return errors.Join(c.Target.Close(), c.cleanup()) }

// inProcess is the reference server in this process, behind a loopback
// listener. Restart replaces the server on the same data and URL.
type inProcess struct {
	o       Options
	info    target.Info
	url     string
	lb      *target.Loopback
	cleanup func() error

	mu      sync.Mutex
	srv     *mcpserver.Server
	obsPath string // the Observatory's WebSocket path
	handler atomic.Pointer[http.Handler]
}

func newInProcess(o Options, dir string, cleanup func() error) (*inProcess, error) {
	t := &inProcess{o: o, cleanup: cleanup, info: target.Info{Kind: target.KindEmbedded, Transport: target.HTTP,
		Storage: o.Storage, DataDir: dir, ExportDir: filepath.Join(dir, "exports"), Canary: target.Canary()}}
	if err := t.start(); err != nil {
		return nil, fmt.Errorf("%w: %v", target.ErrUnreachable, err)
	}
	lb, err := target.ServeLoopback(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*t.handler.Load()).ServeHTTP(w, r)
	}))
	if err != nil {
		t.srv.Close()
		return nil, fmt.Errorf("%w: %v", target.ErrUnreachable, err)
	}
	t.lb, t.url = lb, lb.Base+mcpserver.MCPPath
	t.info.Address = t.url
	return t, nil
}

func (t *inProcess) start() error {
	cfg := mcpserver.Defaults()
	cfg.Storage, cfg.DataDir, cfg.DisableThoughtLogging = t.o.Storage, t.info.DataDir, true
	cfg.CritiqueTimeout = CritiqueTimeout
	cfg = t.withObservatory(cfg)
	// The server's own settings among Env apply in this process too.
	for _, kv := range t.o.Env {
		k, v, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(mcpserver.Settings, func(s mcpserver.Setting) bool { return s.Env == k }) {
			continue
		}
		if err := cfg.Apply(k, v); err != nil {
			return err
		}
	}
	srv, err := mcpserver.New(cfg, mcpserver.WithLogger(quietLogger()))
	if err != nil {
		return err
	}
	h := srv.Handler()
	t.mu.Lock()
	t.srv, t.obsPath = srv, cfg.Observatory.Path
	t.mu.Unlock()
	t.handler.Store(&h)
	return nil
}

func (t *inProcess) Info() target.Info { return t.info }
func (t *inProcess) HTTPBase() string  { return t.url }

// Handler is the server's own HTTP handler, for a decorator that serves it
// in process.
func (t *inProcess) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*t.handler.Load()).ServeHTTP(w, r) })
}

func (t *inProcess) Dial(_ context.Context, _ *transcript.Recorder, o target.DialOptions) (transport.Interface, error) {
	return target.DialHTTP(t.url, o)
}

// ErrCannotKill is returned by Restart(kill) of an in-process server: this
// process can not be killed without killing the harness.
var ErrCannotKill = errors.New("the in-process reference server can not be killed; start it as a child process")

// Restart closes the server's sessions and store and opens a new server on
// the same data behind the same URL.
func (t *inProcess) Restart(ctx context.Context, kill bool) error {
	return t.RestartWhileStopped(ctx, kill, nil)
}

// RestartWhileStopped is Restart with stopped run between the close of the
// server and the start of the new one.
func (t *inProcess) RestartWhileStopped(ctx context.Context, kill bool, stopped func() error) error {
	if kill {
		return ErrCannotKill
	}
	if err := t.stop(ctx); err != nil {
		return err
	}
	var serr error
	if stopped != nil {
		serr = stopped()
	}
	return errors.Join(serr, t.start())
}

// Sibling starts the reference server as a child process (this binary run
// again, see ServeIfRequested) over HTTP on the same data: another process
// on the data of this one.
func (t *inProcess) Sibling(ctx context.Context) (target.Target, error) {
	return newChild(ctx, Options{Transport: target.HTTP, Storage: t.o.Storage, Env: t.o.Env}, t.info.DataDir, func() error { return nil })
}

func (t *inProcess) stop(ctx context.Context) error {
	t.mu.Lock()
	srv := t.srv
	t.mu.Unlock()
	srv.CloseSessions(ctx)
	return srv.Close()
}

func (t *inProcess) Close() error {
	var err error
	lbErr := t.lb.Close(func(ctx context.Context) { err = t.stop(ctx) })
	return errors.Join(lbErr, err, t.cleanup())
}
