package brokenserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// The faults for load runs. Unlike the faults of All they do not change what
// a single scenario sees in a way conformance can rely on; they show in the
// figures of a load run (latency, errors, verification).
const (
	// SlowCalls delays every tools/call by SlowCallDelay before forwarding
	// it, so the latency shows in the percentiles.
	SlowCalls Fault = "slow-calls"
	// LosesThoughts acknowledges every LoseEvery-th thoughtbox_gateway
	// "thought" call with nextThoughtNeeded true without forwarding it: the
	// proxy answers a well-formed success itself, so a verification pass
	// that reads back every acknowledged thought finds some missing.
	LosesThoughts Fault = "loses-thoughts"
	// FailsCalls answers every FailEvery-th tools/call with a JSON-RPC
	// error (FailCode, FailMessage) and every FailEvery-th, offset by
	// FailEvery/2, with HTTP 503 and a JSON body; neither is forwarded.
	FailsCalls Fault = "fails-calls"
	// SlowThought delays every thoughtbox_gateway "thought" call by
	// SlowThoughtDelay before forwarding it; nothing else changes. The
	// delay is too small for a load run's thresholds: only a comparison
	// with a healthy server (an A/B regression gate) shows it.
	SlowThought Fault = "slow-thought"
	// CostlyThought burns ThoughtCPU of CPU time in the proxy's goroutine
	// before forwarding every thoughtbox_gateway "thought" call; nothing
	// else changes. The work runs until the thread's CPU clock says
	// ThoughtCPU has passed, so that it costs the same CPU time on a
	// busy machine: a comparison of the CPU time per call with a healthy
	// server shows it when the proxy and the reference server are one
	// process (cmd/broken-thoughtbox).
	CostlyThought Fault = "costly-thought"
)

// LoadFaults lists the faults for load runs. They are not in All: the
// conformance test requires every fault of All to be caught by the
// conformance scenarios, and these are meant to be caught by load runs.
var LoadFaults = []Fault{SlowCalls, LosesThoughts, FailsCalls, SlowThought, CostlyThought}

// Parameters of the load faults.
const (
	// SlowCallDelay is the delay SlowCalls adds to every tools/call.
	SlowCallDelay = 25 * time.Millisecond
	// SlowThoughtDelay is the delay SlowThought adds to every thought call.
	SlowThoughtDelay = time.Millisecond
	// LoseEvery is the period of LosesThoughts, counted over the proxy's
	// thought calls with nextThoughtNeeded true (all MCP sessions together).
	// A call whose turn comes before the proxy has seen its MCP session's
	// reasoning session id in a thought answer is forwarded (and the turn
	// is gone); start_new, load_context and a closing thought make the id
	// unknown again.
	LoseEvery = 5
	// FailEvery is the period of FailsCalls, counted over the proxy's
	// tools/call requests (all MCP sessions together): calls FailEvery,
	// 2*FailEvery, ... get a JSON-RPC error; calls FailEvery/2,
	// FailEvery/2+FailEvery, ... get HTTP 503.
	FailEvery = 10
	// FailCode and FailMessage make the JSON-RPC error of FailsCalls.
	FailCode    = -32603
	FailMessage = "injected failure"
)

// isLoadFault reports whether f is one of LoadFaults.
func isLoadFault(f Fault) bool {
	for _, lf := range LoadFaults {
		if f == lf {
			return true
		}
	}
	return false
}

// loadState is the proxy's bookkeeping for the load faults.
type loadState struct {
	calls    atomic.Int64  // tools/call requests seen (FailsCalls)
	thoughts atomic.Int64  // thought calls with nextThoughtNeeded true (LosesThoughts)
	burned   atomic.Int64  // work units burned (CostlyThought)
	cpu      time.Duration // CPU time per thought call (CostlyThought), set by New

	mu       sync.Mutex
	sessions map[string]*mcpSession // by Mcp-Session-Id (LosesThoughts)
}

// mcpSession is what LosesThoughts knows of one MCP session from the
// upstream's answers.
type mcpSession struct {
	// reasoning is the id of the MCP session's current reasoning session,
	// from the last thought answer ("" when unknown).
	reasoning string
	// sse is true when the upstream answered the session's last tools/call
	// as an event stream rather than as JSON.
	sse bool
}

// session returns the record of an MCP session, creating it. The caller
// holds mu.
func (l *loadState) session(id string) *mcpSession {
	s := l.sessions[id]
	if s == nil {
		if l.sessions == nil {
			l.sessions = map[string]*mcpSession{}
		}
		s = &mcpSession{}
		l.sessions[id] = s
	}
	return s
}

// forgetSession drops what is known of an MCP session (on DELETE).
func (p *Proxy) forgetSession(id string) {
	p.load.mu.Lock()
	delete(p.load.sessions, id)
	p.load.mu.Unlock()
}

// injectLoad applies a load fault to a tools/call before it is forwarded.
// It returns true when it has answered the request itself.
func (p *Proxy) injectLoad(w http.ResponseWriter, r *http.Request, c call) bool {
	switch p.fault {
	case SlowCalls:
		sleep(r.Context(), SlowCallDelay)
	case SlowThought:
		if isThought(c) {
			sleep(r.Context(), SlowThoughtDelay)
		}
	case CostlyThought:
		if isThought(c) {
			p.load.burned.Add(int64(burnFor(p.load.cpu)))
		}
	case FailsCalls:
		switch n := p.load.calls.Add(1); {
		case n%FailEvery == 0:
			writeJSON(w, http.StatusOK, rpcError(c.ID))
			return true
		case n%FailEvery == FailEvery/2:
			writeJSON(w, http.StatusServiceUnavailable, unavailable)
			return true
		}
	case LosesThoughts:
		if c.Tool != "thoughtbox_gateway" {
			return false
		}
		switch c.Operation {
		case "start_new", "load_context":
			// The current reasoning session is about to change.
			p.setReasoning(c.Session, "")
		case "thought":
			if c.Args["nextThoughtNeeded"] != true || p.load.thoughts.Add(1)%LoseEvery != 0 {
				return false
			}
			return p.loseThought(w, c)
		}
	}
	return false
}

// isThought reports whether c is a thoughtbox_gateway "thought" call.
func isThought(c call) bool { return c.Tool == "thoughtbox_gateway" && c.Operation == "thought" }

// loseThought answers a thought call as the reference server would, without
// forwarding it. It returns false (forward the call) while the MCP
// session's reasoning session is not known yet.
func (p *Proxy) loseThought(w http.ResponseWriter, c call) bool {
	p.load.mu.Lock()
	s, ok := p.load.sessions[c.Session]
	var reasoning string
	var sse bool
	if ok {
		reasoning, sse = s.reasoning, s.sse
	}
	p.load.mu.Unlock()
	if reasoning == "" {
		return false
	}
	text, _ := json.MarshalIndent(struct {
		ThoughtNumber any    `json:"thoughtNumber"`
		SessionID     string `json:"sessionId"`
	}{c.Args["thoughtNumber"], reasoning}, "", "  ")
	answer := map[string]any{"jsonrpc": "2.0", "id": c.ID, "result": map[string]any{
		"content": []any{map[string]any{"type": "text", "text": string(text)}}}}
	if !sse {
		writeJSON(w, http.StatusOK, answer)
		return true
	}
	data, _ := json.Marshal(answer)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "event: message\ndata: %s\n\n", data)
	return true
}

// setReasoning records the MCP session's current reasoning session.
func (p *Proxy) setReasoning(session, reasoning string) {
	p.load.mu.Lock()
	p.load.session(session).reasoning = reasoning
	p.load.mu.Unlock()
}

// observeLoad is the response side of the load faults: LosesThoughts learns
// from the upstream's tools/call answers the content type it uses and, from
// thought answers, the current reasoning session. The body passes unchanged.
func (p *Proxy) observeLoad(resp *http.Response, c call) error {
	if p.fault != LosesThoughts || resp.StatusCode != http.StatusOK {
		return nil
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	sse := mt == "text/event-stream"
	p.load.mu.Lock()
	p.load.session(c.Session).sse = sse
	p.load.mu.Unlock()
	if c.Tool != "thoughtbox_gateway" || c.Operation != "thought" {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return err
	}
	for _, msg := range rpcMessages(body, sse) {
		var env struct {
			Result *struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if json.Unmarshal(msg, &env) != nil || env.Result == nil || env.Result.IsError || len(env.Result.Content) == 0 {
			continue
		}
		var ans struct {
			SessionID     *string `json:"sessionId"`
			SessionClosed bool    `json:"sessionClosed"`
		}
		if json.Unmarshal([]byte(env.Result.Content[0].Text), &ans) != nil {
			continue
		}
		switch {
		case ans.SessionClosed:
			p.setReasoning(c.Session, "")
		case ans.SessionID != nil && *ans.SessionID != "":
			p.setReasoning(c.Session, *ans.SessionID)
		}
	}
	return nil
}

// rpcMessages returns the JSON-RPC messages of a POST answer: the body
// itself, or the data of each event of an event stream.
func rpcMessages(body []byte, sse bool) [][]byte {
	if !sse {
		return [][]byte{body}
	}
	var out [][]byte
	var data []byte
	flush := func() {
		if len(data) > 0 {
			out = append(out, data)
		}
		data = nil
	}
	for _, line := range bytes.Split(body, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case len(line) == 0:
			flush()
		case bytes.HasPrefix(line, []byte("data:")):
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		}
	}
	flush()
	return out
}

// unavailable is the JSON body of the HTTP 503 answers of FailsCalls: a
// load balancer's error, not a JSON-RPC message. Its error code is a string
// on purpose: mcp-go's client reads the JSON body of a non-2xx answer as a
// JSON-RPC response whenever it can (a bare string "error" becomes a
// -32603 error, an object without "error" an empty result), and only a body
// it cannot decode makes it report "request failed with status 503: ...".
var unavailable = map[string]any{"status": http.StatusServiceUnavailable,
	"error": map[string]any{"code": "unavailable", "message": "service unavailable (injected by brokenserver)"}}

// rpcError is the JSON-RPC error answer of FailsCalls to request id.
func rpcError(id json.RawMessage) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": FailCode, "message": FailMessage}}
}

// writeJSON writes v as a JSON answer with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
