package sidecar

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/propagation"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// serveMCP forwards one request on the MCP endpoint.
func (p *Proxy) serveMCP(w http.ResponseWriter, r *http.Request) {
	if !p.hostAllowed(r) {
		p.reject(w, http.StatusForbidden, outcome.RefusedHost, "Forbidden: invalid Host header")
		return
	}
	if sid := r.Header.Get(mcp.HeaderSessionID); sid != "" {
		p.sessions.touch(sid)
	}
	switch r.Method {
	case http.MethodPost:
		p.servePost(w, r)
	case http.MethodGet:
		p.serveStream(w, r)
	default:
		p.servePlain(w, r)
	}
}

// servePost forwards a POST: one JSON-RPC message or a batch.
func (p *Proxy) servePost(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	t := p.tel
	t.state.inflight.Add(1)
	defer t.state.inflight.Add(-1)

	body, err := readBody(r.Body, p.cfg.MaxBodyBytes, r.ContentLength)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			p.reject(w, http.StatusRequestEntityTooLarge, outcome.RefusedTooLarge,
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"mcp-sidecar: request body too large"}}`)
		} else {
			p.reject(w, http.StatusBadRequest, outcome.RefusedUnread, "")
		}
		return
	}
	t.wireBytes(DirectionIn, len(body))

	msgs, _ := parseBody(body)
	ctx := r.Context()
	if t.tracer != nil {
		ctx = t.propagator.Extract(ctx, propagation.HeaderCarrier(r.Header))
	}
	ex := exchange{t: t}
	traced := ctx
	for i := range msgs {
		m := &msgs[i]
		if m.kind != kindRequest {
			t.observeInbound(m)
			continue
		}
		cctx, c := t.begin(ctx, m, start)
		if len(ex.calls) == 0 {
			traced = cctx // the upstream's spans hang under the first request's span
		}
		ex.calls = append(ex.calls, c)
	}

	uctx := r.Context()
	if p.cfg.UpstreamTimeout > 0 {
		var cancel context.CancelFunc
		uctx, cancel = context.WithTimeout(uctx, p.cfg.UpstreamTimeout)
		defer cancel()
	}
	ureq := p.upstreamRequest(uctx, r, t.traceBody(body, msgs, ex.calls))
	if len(ex.calls) > 0 && t.tracer != nil {
		t.propagator.Inject(traced, propagation.HeaderCarrier(ureq.Header))
	}
	sent := time.Now()
	ex.markSent(sent, r.Header.Get(mcp.HeaderProtocolVersion))
	resp, err := p.transport.RoundTrip(ureq)
	if err != nil {
		p.upstreamFailed(w, r, uctx, &ex, err)
		return
	}
	defer resp.Body.Close()
	p.upstreamAnswered(r, resp, msgs)

	copyHeaders(w.Header(), resp.Header, false)
	if isEventStream(resp.Header) {
		p.relayEvents(w, r, resp, &ex, streamPost)
		return
	}
	data, err := readBody(resp.Body, p.cfg.MaxBodyBytes, resp.ContentLength)
	received := time.Now()
	switch {
	case err == nil:
		if isJSON(resp.Header) {
			ex.onBody(data)
		}
		ex.unanswered(resp.StatusCode, outcome.Error, codeNoResponse)
		t.inst.overhead.Record(context.Background(), (sent.Sub(start) + time.Since(received)).Seconds(),
			t.attrs.get(attrKey{fam: famServer}).rec...)
		// The whole answer is here: its length goes ahead, so the client
		// reads it in one piece rather than in chunks.
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(resp.StatusCode)
		n, _ := w.Write(data)
		t.wireBytes(DirectionOut, n)
	case errors.Is(err, errTooLarge):
		// Too large to inspect: relay it untouched, judged by status alone.
		status := outcome.OK
		if resp.StatusCode >= 300 {
			status = outcome.Error
		}
		ex.unanswered(resp.StatusCode, status, codeNone)
		w.WriteHeader(resp.StatusCode)
		n, _ := w.Write(data)
		m, _ := io.Copy(w, resp.Body)
		t.wireBytes(DirectionOut, n+int(m))
	default:
		// The answer broke off: so does the proxy's.
		switch {
		case r.Context().Err() != nil:
			ex.unanswered(0, outcome.Cancelled, codeCancelled)
		case isTimeout(err):
			ex.unanswered(0, outcome.Error, codeTimeout)
		default:
			ex.unanswered(0, outcome.Error, codeNoResponse)
		}
		panic(http.ErrAbortHandler)
	}
}

// upstreamFailed handles a POST whose upstream round trip failed.
func (p *Proxy) upstreamFailed(w http.ResponseWriter, r *http.Request, uctx context.Context, ex *exchange, err error) {
	switch {
	case r.Context().Err() != nil:
		ex.unanswered(0, outcome.Cancelled, codeCancelled)
	case errors.Is(uctx.Err(), context.DeadlineExceeded):
		ex.unanswered(0, outcome.Error, codeTimeout)
		ex.proxyError(w, http.StatusGatewayTimeout, outcome.UpstreamTimeout, "")
	default:
		p.markUnreachable(err)
		ex.unanswered(0, outcome.Error, codeUnreachable)
		ex.proxyError(w, http.StatusBadGateway, outcome.UpstreamUnreachable, errorClass(err))
	}
}

// forwardPlain sends r (with body) upstream for a GET or another non-POST
// method. When the upstream cannot be reached it answers 502 itself (unless
// the client left) and returns nil.
func (p *Proxy) forwardPlain(w http.ResponseWriter, r *http.Request, body []byte) *http.Response {
	resp, err := p.transport.RoundTrip(p.upstreamRequest(r.Context(), r, body))
	if err != nil {
		if r.Context().Err() == nil {
			p.markUnreachable(err)
			w.Header().Set(outcome.ProxyAnswerHeader, outcome.UpstreamUnreachable)
			http.Error(w, "mcp-sidecar: upstream unreachable", http.StatusBadGateway)
		}
		return nil
	}
	return resp
}

// serveStream forwards a GET: the server-to-client SSE stream.
func (p *Proxy) serveStream(w http.ResponseWriter, r *http.Request) {
	resp := p.forwardPlain(w, r, nil)
	if resp == nil {
		return
	}
	defer resp.Body.Close()
	p.upstreamAnswered(r, resp, nil)
	copyHeaders(w.Header(), resp.Header, false)
	if isEventStream(resp.Header) {
		p.relayEvents(w, r, resp, &exchange{t: p.tel}, streamGet)
		return
	}
	p.relayPlain(w, resp)
}

// servePlain forwards DELETE and any other method as is.
func (p *Proxy) servePlain(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r.Body, p.cfg.MaxBodyBytes, r.ContentLength)
	if err != nil {
		p.reject(w, http.StatusRequestEntityTooLarge, outcome.RefusedTooLarge, "")
		return
	}
	resp := p.forwardPlain(w, r, body)
	if resp == nil {
		return
	}
	defer resp.Body.Close()
	p.upstreamAnswered(r, resp, nil)
	if r.Method == http.MethodDelete && resp.StatusCode < 300 {
		p.sessions.remove(r.Header.Get(mcp.HeaderSessionID))
	}
	copyHeaders(w.Header(), resp.Header, false)
	p.relayPlain(w, resp)
}

// relayPlain copies a response that is not inspected.
func (p *Proxy) relayPlain(w http.ResponseWriter, resp *http.Response) {
	w.WriteHeader(resp.StatusCode)
	n, _ := io.Copy(w, resp.Body)
	p.tel.wireBytes(DirectionOut, int(n))
}

// upstreamRequest builds the request to the upstream: same method, body and
// end-to-end headers, on the upstream URL, with the client's query if the
// upstream URL has none.
func (p *Proxy) upstreamRequest(ctx context.Context, r *http.Request, body []byte) *http.Request {
	u := *p.upstream
	if u.RawQuery == "" {
		u.RawQuery = r.URL.RawQuery
	}
	var rd io.ReadCloser = http.NoBody
	if len(body) > 0 {
		rd = io.NopCloser(bytes.NewReader(body))
	}
	ureq := &http.Request{
		Method:        r.Method,
		URL:           &u,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        make(http.Header, len(r.Header)+2),
		Body:          rd,
		ContentLength: int64(len(body)),
		Host:          u.Host,
	}
	if len(body) > 0 {
		b := body
		ureq.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	copyHeaders(ureq.Header, r.Header, true)
	return ureq.WithContext(ctx)
}

// upstreamAnswered notes an upstream HTTP response: its status code, the
// availability it proves when probing is off, and what it says about
// sessions.
func (p *Proxy) upstreamAnswered(r *http.Request, resp *http.Response, msgs []message) {
	t := p.tel
	t.inst.upstreamHTTP.Add(context.Background(), 1, t.attrs.get(attrKey{fam: famHTTPCode, a: httpCodeStr(resp.StatusCode)}).add...)
	if p.probe == nil && resp.StatusCode < 500 {
		t.state.setAvailable(true, time.Now())
	}
	sid := r.Header.Get(mcp.HeaderSessionID)
	switch {
	case resp.StatusCode == http.StatusNotFound && sid != "":
		p.sessions.lost(sid) // the upstream no longer knows it
	case resp.StatusCode < 300 && len(msgs) == 1 && msgs[0].kind == kindRequest && msgs[0].method == "initialize":
		if id := resp.Header.Get(mcp.HeaderSessionID); id != "" {
			p.sessions.add(id)
		}
	}
}

// markUnreachable records a failed connection to the upstream.
func (p *Proxy) markUnreachable(err error) {
	if p.tel.state.available.Swap(0) == 1 {
		p.tel.log.Warn("upstream unreachable", "server_name", p.cfg.ServerName, "error", errorClass(err))
	}
}

// reject answers a request the proxy refuses itself.
func (p *Proxy) reject(w http.ResponseWriter, status int, reason, body string) {
	p.tel.inst.rejected.Add(context.Background(), 1, p.tel.attrs.get(attrKey{fam: famReason, a: reason}).add...)
	if len(body) > 0 && body[0] == '{' {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	}
	w.Header().Set(outcome.ProxyAnswerHeader, reason)
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// isEventStream reports whether a response is an SSE stream.
func isEventStream(h http.Header) bool { return mediaType(h) == "text/event-stream" }

// isJSON reports whether a response body is JSON.
func isJSON(h http.Header) bool {
	mt := mediaType(h)
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// mediaType is the lower-cased media type of the Content-Type header.
func mediaType(h http.Header) string {
	ct := h.Get("Content-Type")
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

var errTooLarge = errors.New("body too large")

// readBody reads all of r, failing with errTooLarge (and what was read)
// beyond limit bytes. size, the declared length or -1, sizes the buffer.
func readBody(r io.Reader, limit, size int64) ([]byte, error) {
	if r == nil || r == http.NoBody {
		return nil, nil
	}
	if size < 0 || size > limit {
		size = 512
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+1))
	n, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	if err != nil {
		return buf.Bytes(), err
	}
	if n > limit {
		return buf.Bytes(), errTooLarge
	}
	return buf.Bytes(), nil
}
