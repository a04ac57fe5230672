package brokenserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
)

// Faults of the 2026-07-28 era (features/eras.feature, and every scenario
// run in that era): each is caught only when the run speaks it.
const (
	// NoResultType drops resultType from thoughtbox_gateway results.
	NoResultType Fault = "result-type-missing"
	// HeaderMismatchAccepted mends a request whose Mcp-Method or Mcp-Name
	// header disagrees with its body before the server sees it, so the
	// server accepts what it must refuse with -32020.
	HeaderMismatchAccepted Fault = "header-mismatch-accepted"
	// ContextLeak runs a 2026-era gateway call that names no context in the
	// context last minted for any client, so a new client continues
	// another's reasoning session.
	ContextLeak Fault = "context-leaks-between-clients"
	// CritiqueTwice records the thought of a critique's retry (the call
	// that brings the sampling answer back) again, as a server that does
	// not know the thought is already recorded would.
	CritiqueTwice Fault = "critique-recorded-twice"
)

// EraFaults are the faults a run in the 2026 era must catch.
var EraFaults = []Fault{NoResultType, HeaderMismatchAccepted, ContextLeak, CritiqueTwice}

// eraState is what ContextLeak remembers.
type eraState struct {
	mu      sync.Mutex
	context string
}

// mendHeaders makes the Mcp-Method and Mcp-Name headers of a 2026-era
// request agree with its body (HeaderMismatchAccepted).
func (p *Proxy) mendHeaders(r *http.Request, method, name string) {
	if p.fault != HeaderMismatchAccepted || r.Header.Get("Mcp-Method") == "" {
		return
	}
	r.Header.Set("Mcp-Method", method)
	if name != "" {
		r.Header.Set("Mcp-Name", name)
	}
}

// leakContext adds the last minted context to a 2026-era gateway call that
// names none (ContextLeak).
func (p *Proxy) leakContext(body []byte) []byte {
	if p.fault != ContextLeak {
		return body
	}
	var msg map[string]json.RawMessage
	var params map[string]json.RawMessage
	var args map[string]any
	if json.Unmarshal(body, &msg) != nil || json.Unmarshal(msg["params"], &params) != nil || json.Unmarshal(params["arguments"], &args) != nil {
		return body
	}
	var meta map[string]any
	_ = json.Unmarshal(params["_meta"], &meta)
	if _, modern := meta["io.modelcontextprotocol/protocolVersion"]; !modern || args == nil || args["contextId"] != nil {
		return body
	}
	p.era.mu.Lock()
	id := p.era.context
	p.era.mu.Unlock()
	if id == "" {
		return body
	}
	args["contextId"] = id
	params["arguments"], _ = json.Marshal(args)
	msg["params"], _ = json.Marshal(params)
	out, err := json.Marshal(msg)
	if err != nil {
		return body
	}
	return out
}

// eraResult applies the era faults to a gateway result.
func (p *Proxy) eraResult(res map[string]any) {
	switch p.fault {
	case NoResultType:
		delete(res, "resultType")
	case ContextLeak:
		if sc, ok := res["structuredContent"].(map[string]any); ok {
			if id, ok := sc["contextId"].(string); ok && id != "" {
				p.era.mu.Lock()
				p.era.context = id
				p.era.mu.Unlock()
			}
		}
	}
}

// recordAgain sends upstream, before a critique's retry, the same thought
// without the critique and the retry's state (CritiqueTwice).
func (p *Proxy) recordAgain(r *http.Request, body []byte) {
	if p.fault != CritiqueTwice {
		return
	}
	var msg map[string]json.RawMessage
	var params map[string]json.RawMessage
	var args map[string]json.RawMessage
	var inner map[string]any
	if json.Unmarshal(body, &msg) != nil || json.Unmarshal(msg["params"], &params) != nil || params["requestState"] == nil ||
		json.Unmarshal(params["arguments"], &args) != nil || json.Unmarshal(args["args"], &inner) != nil || string(args["operation"]) != `"thought"` {
		return
	}
	delete(params, "requestState")
	delete(params, "inputResponses")
	delete(inner, "critique")
	args["args"], _ = json.Marshal(inner)
	params["arguments"], _ = json.Marshal(args)
	msg["params"], _ = json.Marshal(params)
	msg["id"] = json.RawMessage(`"brokenserver-again"`)
	again, err := json.Marshal(msg)
	if err != nil {
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, p.upstream.String(), bytes.NewReader(again))
	if err != nil {
		return
	}
	req.Header = r.Header.Clone()
	req.Host = r.Host
	if resp, err := upstreamTransport().RoundTrip(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
