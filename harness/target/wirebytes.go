package target

import (
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// WireBytes returns how many bytes of HTTP bodies the harness has sent to
// and received from the host of endpoint so far, over every MCP session
// (DialHTTP) and raw request (RawHTTP, RawHTTPCounted) of this process:
// the request bodies as the transport read them (one of known length once
// written in full, answered or not), the response bodies as the client
// read them (a stream the client stopped reading counts what it read),
// except the answers a sidecar gave itself (outcome.ProxyAnswerHeader) and
// the requests it refused unread (outcome.ProxyRefused).
// Headers are not counted. A sidecar in front of a target counts
// the same bodies (its byte counter); two readings give the bytes of the
// runs between them.
func WireBytes(endpoint string) (sent, received int64) {
	w := wireBytesOf(hostOf(endpoint))
	return w.sent.Load(), w.received.Load()
}

// wireCount is the bytes exchanged with one host.
type wireCount struct{ sent, received atomic.Int64 }

var wireCounts sync.Map // host:port → *wireCount

func wireBytesOf(host string) *wireCount {
	v, _ := wireCounts.LoadOrStore(host, &wireCount{})
	return v.(*wireCount)
}

// countingTransport counts the bodies of the requests it carries and of
// their responses, by the request's host.
type countingTransport struct{ inner http.RoundTripper }

// RoundTrip carries req, counting its body and its response's.
func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	w := wireBytesOf(req.URL.Host)
	_, traced := t.inner.(*http.Transport) // calls a request's httptrace hooks
	// The request's body as counted, to take back out of the bytes sent
	// if the sidecar refuses the request: one of the two.
	var (
		state *atomic.Int32 // a body of known length: 0, bodyCounted or bodyUncounted
		body  *requestBody
	)
	switch {
	case req.ContentLength > 0 && traced:
		// A body of known length goes as it is: net/http sends the
		// headers and an in-memory body (what mcp-go's transport gives)
		// in one write, but a wrapped body after a write of the headers
		// of its own, a second system call on both ends of every call.
		// It counts once written in full, answered or not. (Another
		// carrier, such as a handler in this process, reads the body
		// through the counter below at no such cost.) The write may end
		// after the answer has come: the state says which came first.
		n := req.ContentLength
		state = new(atomic.Int32)
		trace := &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) {
			if i.Err == nil && state.CompareAndSwap(0, bodyCounted) {
				w.sent.Add(n)
			}
		}}
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	case req.Body != nil && req.Body != http.NoBody:
		// The request is the caller's: a copy carries the counting body.
		r := req.Clone(req.Context())
		body = &requestBody{ReadCloser: req.Body, n: &w.sent}
		r.Body = body
		req = r
	}
	resp, err := t.inner.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	// An answer the sidecar gave itself (outcome.ProxyAnswerHeader) is not
	// the server's: it is not counted, as the sidecar does not count it;
	// and the body of a request it refused unread is not counted either.
	switch reason := resp.Header.Get(outcome.ProxyAnswerHeader); {
	case reason == "":
		if resp.Body != nil {
			resp.Body = &countingBody{ReadCloser: resp.Body, n: &w.received}
		}
	case !outcome.ProxyRefused(reason):
	case state != nil:
		if state.Swap(bodyUncounted) == bodyCounted {
			w.sent.Add(-req.ContentLength)
		}
	case body != nil:
		body.uncount()
	}
	return resp, err
}

// The states of a request body of known length.
const (
	bodyCounted   = 1 // written in full and counted
	bodyUncounted = 2 // refused: not counted, or taken back out
)

// CloseIdleConnections closes the inner transport's idle connections.
func (t countingTransport) CloseIdleConnections() { closeIdleConnections(t.inner) }

// closeIdleConnections closes rt's idle connections, if it keeps any (as
// http.Client.CloseIdleConnections does with its transport).
func closeIdleConnections(rt http.RoundTripper) {
	if c, ok := rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// countingBody adds the bytes read through it to n.
type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	k, err := b.ReadCloser.Read(p)
	b.n.Add(int64(k))
	return k, err
}

// requestBody is a request body that adds the bytes read through it to n,
// until uncount takes them back out.
type requestBody struct {
	io.ReadCloser
	n    *atomic.Int64
	mu   sync.Mutex
	read int64 // added to n
	gone bool  // uncounted: reads no longer count
}

func (b *requestBody) Read(p []byte) (int, error) {
	k, err := b.ReadCloser.Read(p)
	b.mu.Lock()
	if !b.gone {
		b.read += int64(k)
		b.n.Add(int64(k))
	}
	b.mu.Unlock()
	return k, err
}

// uncount takes the bytes read so far back out of n, and those read after.
func (b *requestBody) uncount() {
	b.mu.Lock()
	b.gone = true
	b.n.Add(-b.read)
	b.mu.Unlock()
}

// rawClient carries the raw HTTP requests (rawHTTP), counted.
var rawClient = &http.Client{Transport: countingTransport{inner: http.DefaultTransport}}
