package target

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// Loopback is an HTTP server on a free loopback port.
type Loopback struct {
	// Base is the server's root URL, http://127.0.0.1:port.
	Base string
	hs   *http.Server
}

// ServeLoopback serves h on a free loopback port until Close.
func ServeLoopback(h http.Handler) (*Loopback, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	return &Loopback{Base: "http://" + ln.Addr().String(), hs: hs}, nil
}

// Close shuts the server down gracefully, waiting at most five seconds for
// the requests in flight; before runs first, with the same deadline.
func (l *Loopback) Close(before func(context.Context)) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if before != nil {
		before(ctx)
	}
	// The harness's idle connections go first: one the client dialed but
	// never sent a request on counts as busy to Shutdown for five seconds.
	forgetIdleConnections(l.Base)
	err := l.hs.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = l.hs.Close()
	}
	forgetIdleConnections(l.Base)
	return err
}

// closers runs clean-up functions last first.
type closers []func() error

func (c *closers) add(f func() error) { *c = append(*c, f) }

func (c *closers) run() error {
	var errs []error
	for i := len(*c) - 1; i >= 0; i-- {
		errs = append(errs, (*c)[i]())
	}
	*c = nil
	return errors.Join(errs...)
}
