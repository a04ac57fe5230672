package sidecartest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"
)

// CountingServer serves a handler on a loopback port, never closes an idle
// connection itself and counts the connections opened to it: for tests of
// how long a client keeps its idle connections. Close it when done.
type CountingServer struct {
	*httptest.Server
	opened atomic.Int32
}

// StartCounting starts a CountingServer of h.
func StartCounting(h http.Handler) *CountingServer {
	c := &CountingServer{Server: httptest.NewUnstartedServer(h)}
	c.Config.IdleTimeout = time.Hour
	c.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			c.opened.Add(1)
		}
	}
	c.Start()
	return c
}

// Opened returns how many connections have been opened to the server.
func (c *CountingServer) Opened() int { return int(c.opened.Load()) }
