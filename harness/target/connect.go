package target

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

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
		hopts := []transport.StreamableHTTPCOption{transport.WithHTTPLogger(quietLogger())}
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
