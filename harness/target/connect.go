package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/mark3labs/mcp-go/client"
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
	// RefuseSampling declares it and refuses every request with a JSON-RPC
	// error, as a user who declines would.
	RefuseSampling
	// StallSampling declares it and never answers (until the request is
	// cancelled): the server's critique timeout must end the wait.
	StallSampling
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
	// Bypass says the session does not pass the sidecar in front of the
	// run's target although it is not Direct (it talks to another process of
	// the server): its traffic is left out of the counts compared with the
	// sidecar's.
	Bypass bool
	// Era is the MCP wire era the connection speaks (default: the
	// target's, Info.Era, else 2025-11-25).
	// In the 2026 era there is no session: Connect asks server/discover,
	// every request declares the era, multi round-trip requests are
	// answered as the server's own requests are in 2025, and the context a
	// thoughtbox_gateway answer names is carried into the calls after it.
	Era Era
}

// samplerFor is the sampling handler of a mode (nil for NoSampling).
func samplerFor(mode Sampling) client.SamplingHandler {
	switch mode {
	case AnswerSampling:
		return sampler{}
	case RefuseSampling:
		return refuser{}
	case StallSampling:
		return staller{}
	}
	return nil
}

type sampler struct{}

func (s sampler) CreateMessage(_ context.Context, _ mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant,
		Content: mcp.NewTextContent("Critique from the harness: the step assumes what it should show.")},
		Model: SamplingModel, StopReason: "endTurn"}, nil
}

// refuser declines every sampling request.
type refuser struct{}

func (refuser) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return nil, errors.New("the user declined the sampling request")
}

// staller answers no sampling request.
type staller struct{}

func (staller) CreateMessage(ctx context.Context, _ mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

type roots []mcp.Root

func (r roots) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: r}, nil
}

// Connect opens a new, initialized MCP session with t recorded in rec: a
// new HTTP session, or, over stdio, a new child process.
func Connect(ctx context.Context, t Target, rec *transcript.Recorder, o ConnOptions) (*Conn, error) {
	era := o.Era
	if era == "" {
		era = t.Info().Era
	}
	era = era.OrDefault()
	// Server-initiated requests reach a 2025-era HTTP client on the GET
	// stream; the 2026 era has none.
	listen := (o.Sampling != NoSampling || o.Roots != nil) && !era.Modern()
	inner, err := t.Dial(ctx, rec, DialOptions{Listen: listen, Direct: o.Direct})
	if err != nil {
		return nil, err
	}
	rt := record(inner, rec, (o.Direct && proxied(t)) || o.Bypass)
	opts := []client.ClientOption{client.WithProtocolVersion(string(era))}
	if h := samplerFor(o.Sampling); h != nil {
		opts = append(opts, client.WithSamplingHandler(h))
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
	req.Params.ProtocolVersion = string(era)
	req.Params.ClientInfo = clientInfo
	init, err := c.Initialize(ctx, req)
	if err != nil {
		c.Close()
		if t.Info().Transport == Stdio && errors.Is(err, context.DeadlineExceeded) {
			// An HTTP server started as a stdio command waits for HTTP
			// and never answers on its standard output.
			return nil, fmt.Errorf("initialize: %w (no answer over stdio: if the command serves HTTP, give --transport http)", err)
		}
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if era.Modern() && init.ProtocolVersion != string(era) {
		// mcp-go's client falls back to initialize when server/discover
		// fails: the target speaks the 2025 era only.
		c.Close()
		return nil, fmt.Errorf("%w: asked for %s, the target answered %s", ErrEraNotSpoken, era, init.ProtocolVersion)
	}
	conn := &Conn{client: c, tr: rt, calls: recordingOf(rt), rec: rec, init: init, era: era, opts: o, caps: capabilitiesOf(o)}
	// Like MCP clients at start-up, list the tools; a stdio sidecar learns
	// the tool and operation names it may use as labels from this answer.
	if _, err := conn.Request(ctx, "tools/list", map[string]any{}); err != nil {
		c.Close()
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	return conn, nil
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

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
