package sidecar

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// exchange is one POST: the requests it carried and their answers so far.
type exchange struct {
	t     *telemetry
	calls []*call
	// nullErr is an answer with a null id: an error about the whole body
	// (parse error, invalid request), which applies to every unanswered call.
	nullErr []byte
}

// markSent notes when the requests went upstream, and the protocol version
// the client declared in its header (which a request without one takes
// from its _meta, as a 2026-era request over HTTP has both, equal).
func (e *exchange) markSent(at time.Time, protocolVersion string) {
	v := protocolVersionLabel(protocolVersion)
	for _, c := range e.calls {
		c.sent = at
		if v != "" || c.version == "" {
			c.version = v
		}
	}
}

// onMessage takes one message of the upstream's answer.
func (e *exchange) onMessage(m *message) {
	if m.kind == kindResponse {
		if m.id == "" && m.err != nil {
			e.nullErr = m.err
		}
		for _, c := range e.calls {
			if !c.done && c.id == m.id && m.id != "" {
				e.t.answer(c, m)
				return
			}
		}
	}
	e.t.observeOutbound(m)
}

// onBody takes a whole JSON answer body (one message or a batch).
func (e *exchange) onBody(body []byte) {
	if len(body) == 0 {
		return
	}
	msgs, _ := parseBody(body)
	for i := range msgs {
		e.onMessage(&msgs[i])
	}
}

// unanswered finishes the calls that got no answer: with the code of an
// id-less JSON-RPC error if there was one, else with the upstream's HTTP
// error status, else with fallback.
func (e *exchange) unanswered(httpStatus int, status, fallback string) {
	code := fallback
	switch {
	case status != outcome.Error:
	case e.nullErr != nil:
		if n, ok := errorCode(e.nullErr); ok {
			code = jsonrpcCodeLabel(n)
		}
	case httpStatus >= 300:
		code = httpCodeLabel(httpStatus)
	}
	for _, c := range e.calls {
		e.t.finish(c, status, code)
	}
}

// proxyError writes the answer the proxy gives itself when the upstream
// could not be reached: a JSON-RPC error per request, with the HTTP status;
// its message names the reason and, when known, the failure's class
// (errorClass: connection_refused, connection_reset, …), so that a client
// that only sees the answer can tell a server that was down from one that
// dropped the connection.
func (e *exchange) proxyError(w http.ResponseWriter, httpStatus int, reason, detail string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(outcome.ProxyAnswerHeader, reason)
	w.WriteHeader(httpStatus)
	if len(e.calls) == 0 {
		return
	}
	message := "mcp-sidecar: " + reason
	if detail != "" {
		message += " (" + detail + ")"
	}
	one := func(c *call) string {
		return `{"jsonrpc":"2.0","id":` + jsonID(c.id) + `,"error":{"code":-32603,"message":"` + message + `"}}`
	}
	if len(e.calls) == 1 {
		_, _ = w.Write([]byte(one(e.calls[0])))
		return
	}
	out := "["
	for i, c := range e.calls {
		if i > 0 {
			out += ","
		}
		out += one(c)
	}
	_, _ = w.Write([]byte(out + "]"))
}

// jsonID turns a canonical id back into JSON.
func jsonID(id string) string {
	if id == "" {
		return "null"
	}
	if id[0] == 's' {
		b, _ := json.Marshal(id[1:])
		return string(b)
	}
	return id[1:]
}
