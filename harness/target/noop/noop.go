// Package noop is a no-op MCP server: the same protocol and tool as a
// Thoughtbox server (Streamable HTTP with sessions, a thoughtbox_gateway tool
// taking an operation and its args), answering every call at once without
// doing or keeping anything. Measured beside a real server in the same run,
// it shows the ceiling of this client, transport and machine, so a server's
// throughput can be reported as a fraction of it.
package noop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// Path is the no-op server's MCP endpoint path.
const Path = "/mcp"

// Handler returns the no-op server's HTTP handler.
func Handler() http.Handler {
	s := mcpsrv.NewMCPServer("tbbench-noop", "0.1.0", mcpsrv.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("thoughtbox_gateway",
		mcp.WithDescription("No-op stand-in for the Thoughtbox gateway: answers every operation at once."),
		mcp.WithString("operation", mcp.Required(), mcp.Description("the operation")),
		mcp.WithObject("args", mcp.Description("the operation's arguments")),
	), answer)
	mux := http.NewServeMux()
	mux.Handle(Path, mcpsrv.NewStreamableHTTPServer(s, mcpsrv.WithDisableLocalhostProtection(true)))
	return mux
}

var sessions atomic.Int64

// answer gives each operation the smallest answer of the right shape.
func answer(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args := req.GetArguments()
	op, _ := args["operation"].(string)
	var out map[string]any
	switch op {
	case "thought":
		n := 1.0
		if a, ok := args["args"].(map[string]any); ok {
			if v, ok := a["thoughtNumber"].(float64); ok {
				n = v
			}
		}
		out = map[string]any{"thoughtNumber": n, "sessionId": "noop"}
	case "start_new", "load_context":
		out = map[string]any{"sessionId": "noop-" + strconv.FormatInt(sessions.Add(1), 10), "stage": "STAGE_1"}
	default:
		out = map[string]any{"operation": op, "ok": true}
	}
	b, _ := json.Marshal(out)
	return mcp.NewToolResultText(string(b)), nil
}

// Options configure the no-op target.
type Options struct {
	// Process runs the no-op server as a child process (this binary run
	// again with ServeEnv), to match a reference server run as one.
	Process bool
}

type inProcess struct {
	lb  *target.Loopback
	url string
}

// New starts the no-op server.
func New(ctx context.Context, o Options) (target.Target, error) {
	if o.Process {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", target.ErrUnreachable, err)
		}
		env := append([]string{ServeEnv + "=http", "PORT={port}"}, target.SelfChildEnv()...)
		return target.NewCommand(ctx, target.CommandOptions{Argv: []string{exe}, Env: env, Transport: target.HTTP, Kind: target.KindNoop})
	}
	lb, err := target.ServeLoopback(Handler())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", target.ErrUnreachable, err)
	}
	return &inProcess{lb: lb, url: lb.Base + Path}, nil
}

func (t *inProcess) Info() target.Info {
	return target.Info{Kind: target.KindNoop, Address: t.url + " (no-op)", Transport: target.HTTP}
}
func (t *inProcess) HTTPBase() string { return t.url }
func (t *inProcess) Close() error     { return t.lb.Close(nil) }
func (t *inProcess) Dial(_ context.Context, _ *transcript.Recorder, o target.DialOptions) (transport.Interface, error) {
	return target.DialHTTP(t.url, o)
}

// ServeEnv, set to "http" in a process's environment with PORT, makes
// ServeIfRequested serve the no-op server on 127.0.0.1:PORT.
const ServeEnv = "TBBENCH_SERVE_NOOP"

// ServeIfRequested serves the no-op server and exits when ServeEnv asks for
// it; otherwise it returns at once.
func ServeIfRequested() {
	if os.Getenv(ServeEnv) != "http" {
		return
	}
	stopProfile := target.StartChildProfile("noop server")
	hs := &http.Server{Addr: "127.0.0.1:" + os.Getenv("PORT"), Handler: Handler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	err := hs.ListenAndServe()
	stopProfile()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "noop server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
