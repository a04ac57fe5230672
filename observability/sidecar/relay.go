package sidecar

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// Values of the stream label.
const (
	streamPost = "post" // the SSE answer to a POST
	streamGet  = "get"  // the standalone server-to-client stream
)

var relayBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// relayEvents streams an SSE response to the client as it arrives, one
// flush per read, while parsing its events for answers and notifications.
// Each chunk is inspected before it is written, so a request is recorded
// before the client can see its answer.
func (p *Proxy) relayEvents(w http.ResponseWriter, r *http.Request, resp *http.Response, ex *exchange, stream string) {
	t := p.tel
	gauge := &t.state.ssePost
	if stream == streamGet {
		gauge = &t.state.sseGet
	}
	gauge.Add(1)
	defer gauge.Add(-1)
	events := t.attrs.get(attrKey{fam: famStream, a: stream}).add

	rc := http.NewResponseController(w)
	w.WriteHeader(resp.StatusCode)
	_ = rc.Flush()

	parser := sseParser{max: int(p.cfg.MaxBodyBytes), onData: func(data []byte) {
		t.inst.sseEvents.Add(context.Background(), 1, events...)
		m := parseMessage(data)
		ex.onMessage(&m)
	}}
	bp := relayBuffers.Get().(*[]byte)
	defer relayBuffers.Put(bp)
	buf := *bp
	var readErr error
	clientGone := false
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			parser.feed(buf[:n])
			t.wireBytes(DirectionOut, n)
			if _, werr := w.Write(buf[:n]); werr != nil {
				clientGone = true
				break
			}
			_ = rc.Flush()
		}
		if err != nil {
			readErr = err
			break
		}
	}
	switch {
	case clientGone || r.Context().Err() != nil:
		ex.unanswered(0, outcome.Cancelled, codeCancelled)
	case readErr != nil && !errors.Is(readErr, io.EOF) && isTimeout(readErr):
		ex.unanswered(0, outcome.Error, codeTimeout)
	default:
		ex.unanswered(0, outcome.Error, codeNoResponse)
	}
}

// isTimeout reports whether err is a deadline.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// errorClass names a transport error without its text, which can carry the
// request URL.
func errorClass(err error) string {
	var dns *net.DNSError
	switch {
	case err == nil:
		return "none"
	case isTimeout(err):
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection_refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection_reset"
	case errors.As(err, &dns):
		return "dns"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return "other"
}
