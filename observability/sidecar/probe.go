package sidecar

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// prober checks the upstream's real availability with the MCP protocol
// itself: an initialize handshake once (which a stateful server needs
// before anything else), then a ping in that session every interval,
// re-initializing when the upstream has forgotten the session. While
// handshaking it lists tools, prompts and resources, so that the label
// allow-lists are known before any client asks. Its traffic goes straight
// to the upstream and is not counted as client traffic.
type prober struct {
	p       *Proxy
	session string
	version string
	ready   bool
	seq     int // request ids
	rounds  int
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

// check is one probe: handshake if needed, then ping.
func (pr *prober) check(ctx context.Context) error {
	if !pr.ready {
		if err := pr.handshake(ctx); err != nil {
			return err
		}
	}
	status, m, _, err := pr.call(ctx, "ping", nil)
	if err == nil && status == http.StatusNotFound && pr.session != "" {
		pr.ready, pr.session = false, ""
		if err := pr.handshake(ctx); err != nil {
			return err
		}
		status, m, _, err = pr.call(ctx, "ping", nil)
	}
	switch {
	case err != nil:
		return fmt.Errorf("ping: %s", errorClass(err))
	case status >= 300:
		return fmt.Errorf("ping: http %d", status)
	case m == nil:
		return errors.New("ping: no answer")
	}
	return nil
}

// handshake opens the probe's session and learns the upstream's vocabulary.
func (pr *prober) handshake(ctx context.Context) error {
	params := map[string]any{
		"protocolVersion": mcp.LATEST_LEGACY_PROTOCOL_VERSION,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcp-sidecar-probe", "version": version()},
	}
	status, m, h, err := pr.call(ctx, "initialize", params)
	switch {
	case err != nil:
		return fmt.Errorf("initialize: %s", errorClass(err))
	case status >= 300:
		return fmt.Errorf("initialize: http %d", status)
	case m == nil || m.err != nil:
		return errors.New("initialize: no result")
	}
	var res struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(m.result, &res)
	pr.session = h.Get("Mcp-Session-Id")
	pr.version = res.ProtocolVersion
	if _, _, _, err := pr.send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), ""); err != nil {
		return fmt.Errorf("initialized: %s", errorClass(err))
	}
	pr.ready = true
	for capability, methods := range map[string][]string{
		"tools":     {"tools/list"},
		"prompts":   {"prompts/list"},
		"resources": {"resources/list", "resources/templates/list"},
	} {
		if _, ok := res.Capabilities[capability]; !ok {
			continue
		}
		for _, method := range methods {
			pr.learn(ctx, method)
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
		status, m, _, err := pr.call(ctx, method, params)
		if err != nil || status >= 300 || m == nil || m.err != nil {
			return
		}
		pr.p.tel.vocab.learn(method, m.result)
		var next struct {
			NextCursor string `json:"nextCursor"`
		}
		if json.Unmarshal(m.result, &next) != nil || next.NextCursor == "" {
			return
		}
		cursor = next.NextCursor
	}
}

// call sends one request and returns the HTTP status and its answer.
func (pr *prober) call(ctx context.Context, method string, params any) (int, *message, http.Header, error) {
	pr.seq++
	id := "mcp-sidecar-probe-" + strconv.Itoa(pr.seq)
	req := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	body, _ := json.Marshal(req)
	return pr.send(ctx, body, "s"+id)
}

// send posts body and, when id is set, finds the answer with that id in a
// JSON or SSE response.
func (pr *prober) send(ctx context.Context, body []byte, id string) (int, *message, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, pr.p.upstream.String(), bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if pr.session != "" {
		req.Header.Set("Mcp-Session-Id", pr.session)
	}
	if pr.version != "" {
		req.Header.Set("Mcp-Protocol-Version", pr.version)
	}
	resp, err := pr.p.transport.RoundTrip(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	var answer *message
	match := func(m message) bool {
		if m.kind == kindResponse && m.id == id && id != "" {
			answer = &m
			return true
		}
		return false
	}
	if isEventStream(resp.Header) {
		p := sseParser{max: int(pr.p.cfg.MaxBodyBytes), onData: func(d []byte) {
			if answer == nil {
				match(parseMessage(bytes.Clone(d))) // the parser reuses d
			}
		}}
		buf := make([]byte, 4096)
		for answer == nil {
			n, err := resp.Body.Read(buf)
			p.feed(buf[:n])
			if err != nil {
				break
			}
		}
	} else {
		data, err := readBody(resp.Body, pr.p.cfg.MaxBodyBytes, resp.ContentLength)
		if err != nil {
			return resp.StatusCode, nil, resp.Header, err
		}
		msgs, _ := parseBody(data)
		for _, m := range msgs {
			if match(m) {
				break
			}
		}
	}
	return resp.StatusCode, answer, resp.Header, nil
}

// close ends the probe's session upstream.
func (pr *prober) close() {
	if pr.session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, pr.p.upstream.String(), nil)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Session-Id", pr.session)
	if pr.version != "" {
		req.Header.Set("Mcp-Protocol-Version", pr.version)
	}
	if resp, err := pr.p.transport.RoundTrip(req); err == nil {
		resp.Body.Close()
	}
	pr.session = ""
}
