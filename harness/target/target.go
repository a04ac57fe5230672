// Package target reaches the server under test and opens recorded MCP
// sessions with it. A Target is a small interface with one implementation
// per way of reaching a server: a running server at a URL (NewURL), a server
// command started as a child over stdio or HTTP (NewCommand), and, in
// subpackages, the embedded reference server (embedded, the only importer of
// server/), a no-op MCP server that measures the stack's ceiling (noop), and
// the metrics-emitting sidecar as a decorator around any target
// (sidecarfront).
package target

import (
	"context"
	"errors"
	"net/http"
	"os/exec"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// Transports a target can speak.
const (
	HTTP  = "http"
	Stdio = "stdio"
)

// Kinds of targets, as reported in Info.Kind.
const (
	KindEmbedded = "embedded"
	KindURL      = "url"
	KindCommand  = "command"
	KindNoop     = "noop"
)

// Info describes a started target.
type Info struct {
	// Kind is one of the Kind constants.
	Kind string
	// Address is where the target is, for people: a URL or a command line.
	Address string
	// Transport is HTTP or Stdio.
	Transport string
	// Storage is the server's storage backend, when the harness knows it.
	Storage string
	// DataDir is the server's data directory, when the harness knows it.
	DataDir string
	// ExportDir is where the server writes exports, when the harness knows.
	ExportDir string
	// TmpDir is the directory {tmpdir} stood for in a command target's
	// command, arguments or environment ("" when none was asked for).
	TmpDir string
	// Canary is the value of CanaryEnv in the server's environment, when
	// the harness started the server with it ("" when unknown).
	Canary string
	// Era is the MCP wire era connections to the target speak unless they
	// name one ("": 2025-11-25); see InEra.
	Era Era
}

// DialOptions configure one raw MCP transport.
type DialOptions struct {
	// Listen opens the HTTP GET stream on which a server sends its own
	// requests (sampling, roots) to the client.
	Listen bool
	// Direct bypasses any decorator (the sidecar) in front of the target.
	Direct bool
	// Via, when set, carries an HTTP session's requests instead of
	// connections to its endpoint, which then gives only the path and the
	// Host: a proxy this process serves (the sidecar's handler, without
	// a socket).
	Via http.RoundTripper
}

// Target is a server under test.
type Target interface {
	// Info describes the target.
	Info() Info
	// Dial returns a new, unstarted MCP client transport to the target: a
	// Streamable HTTP transport, or over stdio a transport that starts a
	// new child process. What the server writes on stderr goes to rec.
	Dial(ctx context.Context, rec *transcript.Recorder, o DialOptions) (transport.Interface, error)
	// HTTPBase is the MCP endpoint that clients of an HTTP target use, or
	// "" when the target speaks stdio.
	HTTPBase() string
	// Close stops what starting the target started.
	Close() error
}

// ErrUnreachable wraps every failure to start or reach a target.
var ErrUnreachable = errors.New("target unreachable")

// Commander is implemented by stdio targets: Command returns a new,
// unstarted server process whose stderr goes to rec. Decorators that put a
// proxy between the client and the process use it.
type Commander interface {
	Command(rec *transcript.Recorder) *exec.Cmd
}

// Wrapper is implemented by decorators; Unwrap returns the decorated target.
type Wrapper interface {
	Unwrap() Target
}

// Processer is implemented by targets that run the server as one child
// process of this one; Process returns its pid (0 when it is not running).
type Processer interface {
	PID() int
}

// Restarter is implemented by targets that can stop and start the server
// on the same data: gracefully, or with SIGKILL when kill is set. Over stdio,
// where every MCP session is a process of its own, the processes still
// running are stopped and the next session starts a new one.
type Restarter interface {
	Restart(ctx context.Context, kill bool) error
}

// StoppedRestarter is implemented by restartable targets that can run a
// function while the server is stopped, between the stop and the start of
// a restart: to change its files as a crash or a failing disk would.
type StoppedRestarter interface {
	// RestartWhileStopped is Restart with stopped (when not nil) run while
	// no process of the server runs. The server is started again even when
	// stopped fails; stopped's error is returned then.
	RestartWhileStopped(ctx context.Context, kill bool, stopped func() error) error
}

// Sibling is implemented by targets that can start another process of the
// same server on the same data (the way several stdio clients each start
// their own server on one data directory).
type Sibling interface {
	// Sibling starts the other process. Closing it stops that process and
	// leaves the data alone.
	Sibling(ctx context.Context) (Target, error)
}

// CanKill reports whether t's Restart can kill the server with SIGKILL: the
// server runs in child processes of this one (an in-process server can not
// be killed without the harness).
func CanKill(t Target) bool {
	_, restarts := As[Restarter](t)
	_, child := As[Processer](t)
	return restarts && child
}

// Unwrap returns the innermost target below any decorators.
func Unwrap(t Target) Target {
	for {
		w, ok := t.(Wrapper)
		if !ok {
			return t
		}
		t = w.Unwrap()
	}
}

// As finds the first target in t's decorator chain that implements I.
func As[I any](t Target) (I, bool) {
	for {
		if i, ok := t.(I); ok {
			return i, true
		}
		w, ok := t.(Wrapper)
		if !ok {
			var zero I
			return zero, false
		}
		t = w.Unwrap()
	}
}
