package sidecar

import (
	"net"
	"net/http"
	"time"
)

// newTransport returns the default upstream transport: keep-alive with a
// large idle pool (one connection per concurrent request is the steady
// state), no compression (the proxy reads what it relays), no environment
// proxy. An idle connection is closed after idle (Config.UpstreamIdleTimeout).
func newTransport(idle time.Duration) *http.Transport {
	return &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   1024,
		IdleConnTimeout:       idle,
		TLSHandshakeTimeout:   5 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		ForceAttemptHTTP2:     true,
		ReadBufferSize:        32 << 10,
		WriteBufferSize:       32 << 10,
	}
}
