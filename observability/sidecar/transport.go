package sidecar

import (
	"net"
	"net/http"
	"time"
)

// newTransport returns the default upstream transport: keep-alive with a
// large idle pool (one connection per concurrent request is the steady
// state), no compression (the proxy reads what it relays), no environment
// proxy.
//
// An idle connection is closed after upstreamIdle, sooner than servers
// close theirs (Node's HTTP server after 5 s, the reference server after
// 60 s): a request sent on a connection the server closes at that moment
// fails without an answer, and a proxy must not send a POST again (RFC
// 9110, 9.2.2), so the client would get a 502 for a server that was up.
func newTransport() *http.Transport {
	return &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   1024,
		IdleConnTimeout:       upstreamIdle,
		TLSHandshakeTimeout:   5 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		ForceAttemptHTTP2:     true,
		ReadBufferSize:        32 << 10,
		WriteBufferSize:       32 << 10,
	}
}

// upstreamIdle is how long an idle upstream connection is kept.
const upstreamIdle = 4 * time.Second
