package sidecar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// prober checks the upstream's real availability with the MCP protocol
// itself, as an mcp-go client on the Streamable HTTP transport: an
// initialize handshake once (which a stateful server needs before anything
// else), then a ping in that session every interval, re-initializing when
// the upstream has forgotten the session (404). While handshaking it lists
// tools, prompts and resources, so that the label allow-lists are known
// before any client asks. Its traffic goes straight to the upstream
// through the proxy's upstream transport and is not counted as client
// traffic.
type prober struct {
	p      *Proxy
	c      *client.Client // the session's client; nil before a handshake
	status statusRecorder // of the client's last HTTP exchange
	seq    int            // ids of the listing requests
	rounds int
}

// statusRecorder is the probe client's round tripper: it notes the status
// of each answer, which mcp-go's client does not report when the body is a
// JSON-RPC error.
type statusRecorder struct {
	rt   http.RoundTripper
	last atomic.Int32
}

func (s *statusRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	s.last.Store(0)
	resp, err := s.rt.RoundTrip(r)
	if err == nil {
		s.last.Store(int32(resp.StatusCode))
	}
	return resp, err
}

// failed names why a probe request failed, or returns "" when it was
// answered: "http <status>" for a status of 300 or more, the transport
// error's class, or "no result" for a JSON-RPC error answer when answered
// says that is a failure.
func (pr *prober) failed(err error, rpcErrorFails bool) string {
	if code := pr.status.last.Load(); code >= 300 {
		return "http " + strconv.Itoa(int(code))
	}
	if te := (*transport.Error)(nil); errors.As(err, &te) {
		return errorClass(te.Err)
	}
	if err != nil && rpcErrorFails {
		return "no result"
	}
	return ""
}

// run probes at once, then every interval, until ctx ends.
func (pr *prober) run(ctx context.Context, interval time.Duration) {
	pr.round(ctx)
	tk := time.NewTicker(interval)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
			pr.round(ctx)
		}
	}
}

// round runs one probe and publishes its result.
func (pr *prober) round(ctx context.Context) {
	t := pr.p.tel
	pr.rounds++
	start := time.Now()
	rctx, cancel := context.WithTimeout(ctx, pr.p.cfg.ProbeTimeout)
	err := pr.check(rctx)
	cancel()
	if ctx.Err() != nil {
		return
	}
	result := "ok"
	if err != nil {
		result = "fail"
	}
	t.inst.checkDuration.Record(context.Background(), time.Since(start).Seconds(), t.attrs.get(attrKey{fam: famResult, a: result}).rec...)
	was := t.state.available.Load()
	t.state.setAvailable(err == nil, time.Now())
	switch {
	case err == nil && was == 0:
		t.log.Info("upstream available", "server_name", t.server)
	case err != nil && (was == 1 || pr.rounds == 1):
		t.log.Warn("upstream unavailable", "server_name", t.server, "reason", err.Error())
	}
}

// check is one probe: handshake if needed, then ping. The upstream is up
// when the ping is answered, even with a JSON-RPC error; down when the
// handshake or the ping fails at the HTTP level (no connection, a timeout,
// a status other than 200 and 202).
func (pr *prober) check(ctx context.Context) error {
	if pr.c == nil {
		if err := pr.handshake(ctx); err != nil {
			return err
		}
	}
	err := pr.c.Ping(ctx)
	if errors.Is(err, transport.ErrSessionTerminated) {
		pr.close()
		if err := pr.handshake(ctx); err != nil {
			return err
		}
		err = pr.c.Ping(ctx)
	}
	if why := pr.failed(err, false); why != "" {
		return errors.New("ping: " + why)
	}
	return nil
}

// handshake opens the probe's session and learns the upstream's vocabulary.
func (pr *prober) handshake(ctx context.Context) error {
	pr.status.rt = pr.p.transport
	tr, err := transport.NewStreamableHTTP(pr.p.upstream.String(),
		transport.WithHTTPBasicClient(&http.Client{
			Transport:     &pr.status,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			Timeout:       pr.p.cfg.ProbeTimeout, // bounds the closing DELETE too
		}),
		transport.WithHTTPLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	if err := c.Start(context.Background()); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "mcp-sidecar-probe", Version: version()}
	res, err := c.Initialize(ctx, req)
	if why := pr.failed(err, true); why != "" {
		_ = c.Close()
		return errors.New("initialize: " + why)
	}
	pr.c = c
	caps := res.Capabilities
	for _, l := range []struct {
		on      bool
		methods []string
	}{
		{caps.Tools != nil, []string{"tools/list"}},
		{caps.Prompts != nil, []string{"prompts/list"}},
		{caps.Resources != nil, []string{"resources/list", "resources/templates/list"}},
	} {
		for _, method := range l.methods {
			if l.on {
				pr.learn(ctx, method)
			}
		}
	}
	return nil
}

// learn lists method (up to 10 pages) into the vocabulary.
func (pr *prober) learn(ctx context.Context, method string) {
	var cursor string
	for page := 0; page < 10; page++ {
		var params map[string]any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		pr.seq++
		resp, err := pr.c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION,
			ID: mcp.NewRequestId("mcp-sidecar-probe-" + strconv.Itoa(pr.seq)), Method: method, Params: params})
		if err != nil || resp.Error != nil {
			return
		}
		pr.p.tel.vocab.learn(method, resp.Result)
		var next struct {
			NextCursor string `json:"nextCursor"`
		}
		if json.Unmarshal(resp.Result, &next) != nil || next.NextCursor == "" {
			return
		}
		cursor = next.NextCursor
	}
}

// close ends the probe's session upstream (mcp-go's client sends the
// DELETE).
func (pr *prober) close() {
	if pr.c != nil {
		_ = pr.c.Close()
		pr.c = nil
	}
}
