package brokenserver

import (
	"net/http"
	"net/http/httptrace"
)

// upstreamTransport is how the proxy reaches the server: keeping an idle
// connection for every request in flight (http.DefaultTransport keeps two
// per host), so that a load run through the proxy does not open and close
// connections for the requests beyond two, whose cost would vary from
// round to round and blur the server CPU per call the A/B runs compare.
// A request that fails on a connection kept idle from before is sent once
// more on a new one (staleRetry).
func upstreamTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 256
	return staleRetry{t}
}

// staleRetry sends a request again, once, on a new connection when it
// failed without an answer on a connection taken idle from the pool: the
// server that connection led to may have been restarted on the same port
// (the durability scenarios restart and kill it), and Go's transport does
// not send a POST again by itself. The idle connections left are closed
// first, as they lead to the same old server. A request that failed on a
// connection it dialed, or whose body cannot be read again, is not sent
// again; nor is one whose failure was an answer.
type staleRetry struct{ inner *http.Transport }

func (s staleRetry) RoundTrip(req *http.Request) (*http.Response, error) {
	var idle bool
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { idle = i.Reused && i.WasIdle }}
	resp, err := s.inner.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	if err == nil || !idle || req.Context().Err() != nil {
		return resp, err
	}
	again := req.Clone(req.Context())
	if req.Body != nil && req.Body != http.NoBody {
		if req.GetBody == nil {
			return resp, err
		}
		body, gerr := req.GetBody()
		if gerr != nil {
			return resp, err
		}
		again.Body = body
	}
	s.inner.CloseIdleConnections()
	return s.inner.RoundTrip(again)
}

// CloseIdleConnections closes the idle connections to the server.
func (s staleRetry) CloseIdleConnections() { s.inner.CloseIdleConnections() }
