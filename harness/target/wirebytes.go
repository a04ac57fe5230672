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
// except the answers a sidecar gave itself (outcome.ProxyAnswerHeader).
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
	switch {
	case req.ContentLength > 0 && traced:
		// A body of known length goes as it is: net/http sends the
		// headers and an in-memory body (what mcp-go's transport gives)
		// in one write, but a wrapped body after a write of the headers
		// of its own, a second system call on both ends of every call.
		// It counts once written in full, answered or not. (Another
		// carrier, such as a handler in this process, reads the body
		// through the counter below at no such cost.)
		n := req.ContentLength
		trace := &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) {
			if i.Err == nil {
				w.sent.Add(n)
			}
		}}
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	case req.Body != nil && req.Body != http.NoBody:
		// The request is the caller's: a copy carries the counting body.
		r := req.Clone(req.Context())
		r.Body = &countingBody{ReadCloser: req.Body, n: &w.sent}
		req = r
	}
	resp, err := t.inner.RoundTrip(req)
	// An answer the sidecar gave itself (outcome.ProxyAnswerHeader) is not
	// the server's: it is not counted, as the sidecar does not count it.
	if err == nil && resp.Body != nil && resp.Header.Get(outcome.ProxyAnswerHeader) == "" {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: &w.received}
	}
	return resp, err
}

// CloseIdleConnections closes the inner transport's idle connections.
func (t countingTransport) CloseIdleConnections() {
	if c, ok := t.inner.(interface{ CloseIdleConnections() }); ok {
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

// rawClient carries the raw HTTP requests (rawHTTP), counted.
var rawClient = &http.Client{Transport: countingTransport{inner: http.DefaultTransport}}
