package sidecartest

import (
	"context"
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

// AwaitOpened waits until n more connections than at its call have been
// opened, calling poke (when not nil) and then pausing every between
// looks. It returns how many were opened meanwhile, and false when ctx
// ended first.
func (c *CountingServer) AwaitOpened(ctx context.Context, n int, every time.Duration, poke func()) (int, bool) {
	base := c.Opened()
	for c.Opened() < base+n {
		if poke != nil {
			poke()
		}
		select {
		case <-ctx.Done():
			return c.Opened() - base, false
		case <-time.After(every):
		}
	}
	return c.Opened() - base, true
}
