package sidecar

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// HandlerTransport returns a RoundTripper that serves each request with h in
// this process, without a network hop. Use it as Config.Transport to put the
// proxy in front of an in-process server, such as a harness driving the
// reference server: the upstream URL then only provides the path and the
// Host header. Responses stream: RoundTrip returns once h has finished its
// answer (or flushed it), and the body of a flushed answer carries what h
// writes as it writes it, so SSE answers arrive event by event.
func HandlerTransport(h http.Handler) http.RoundTripper { return handlerTransport{h} }

type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	// The proxy has checked the client's Host itself; the upstream sees the
	// request as arriving from nowhere in particular.
	sreq := req.Clone(context.WithValue(ctx, http.LocalAddrContextKey, nil))
	sreq.RequestURI = req.URL.RequestURI()
	sreq.RemoteAddr = "127.0.0.1:1"
	if sreq.Body == nil {
		sreq.Body = http.NoBody
	}
	w := &bufferedResponseWriter{header: http.Header{}, ready: make(chan struct{})}
	handlerWorkers.run(func() {
		defer func() {
			// Like net/http, a panicking handler breaks its response and
			// nothing else.
			if v := recover(); v != nil {
				w.abort(errHandlerPanic)
				return
			}
			w.finish()
		}()
		t.h.ServeHTTP(w, sreq)
	})
	select {
	case <-w.ready:
	case <-ctx.Done():
		w.abandon(ctx.Err())
		return nil, ctx.Err()
	}
	if w.err != nil {
		return nil, w.err
	}
	body := w.body
	if pr := w.pr; pr != nil {
		stop := context.AfterFunc(ctx, func() { _ = pr.CloseWithError(ctx.Err()) })
		body = &stopReadCloser{ReadCloser: pr, stop: stop}
	}
	return &http.Response{
		Status:        http.StatusText(w.status),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.sent,
		Body:          body,
		ContentLength: -1,
		Request:       req,
	}, nil
}

type handlerError string

func (e handlerError) Error() string { return string(e) }

const (
	errHandlerPanic = handlerError("sidecar: in-process upstream handler aborted")
	errAbandoned    = handlerError("sidecar: in-process request abandoned")
)

// bufferedResponseWriter is the upstream handler's ResponseWriter. A
// handler that answers without flushing has its whole answer handed over
// when it returns; one that flushes (an SSE stream) switches to a pipe, and
// the rest of its answer streams.
type bufferedResponseWriter struct {
	header http.Header
	status int
	sent   http.Header // header as of WriteHeader
	buf    bytes.Buffer
	pr     *io.PipeReader // set once streaming
	pw     *io.PipeWriter

	once  sync.Once
	ready chan struct{} // closed when the response (or err) is handed over
	body  io.ReadCloser
	err   error
}

func (w *bufferedResponseWriter) Header() http.Header { return w.header }

func (w *bufferedResponseWriter) WriteHeader(code int) {
	if w.sent == nil {
		w.status, w.sent = code, w.header.Clone()
	}
}

func (w *bufferedResponseWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if w.pw != nil {
		return w.pw.Write(b)
	}
	return w.buf.Write(b)
}

// Flush implements http.Flusher: the response starts streaming.
func (w *bufferedResponseWriter) Flush() {
	w.WriteHeader(http.StatusOK)
	if w.pw != nil {
		return
	}
	w.pr, w.pw = io.Pipe()
	if !w.hand(w.pr, nil) {
		_ = w.pr.CloseWithError(errAbandoned) // nobody will read: writes fail
	}
	if w.buf.Len() > 0 {
		_, _ = w.pw.Write(w.buf.Bytes())
	}
}

func (w *bufferedResponseWriter) finish() {
	w.WriteHeader(http.StatusOK)
	if w.pw != nil {
		_ = w.pw.Close()
		return
	}
	w.hand(io.NopCloser(bytes.NewReader(w.buf.Bytes())), nil)
}

func (w *bufferedResponseWriter) abort(err error) {
	if w.pw != nil {
		_ = w.pw.CloseWithError(err)
		return
	}
	w.hand(nil, err)
}

// abandon is RoundTrip giving up before the response was handed over; a
// handler that flushes later gets a closed pipe (see Flush).
func (w *bufferedResponseWriter) abandon(err error) {
	w.once.Do(func() {
		w.err = err
		close(w.ready)
	})
}

// hand passes the response over to RoundTrip, once; false if RoundTrip
// had already given up.
func (w *bufferedResponseWriter) hand(body io.ReadCloser, err error) bool {
	handed := false
	w.once.Do(func() {
		w.body, w.err, handed = body, err, true
		close(w.ready)
	})
	return handed
}

// stopReadCloser releases the context hook when the body is closed.
type stopReadCloser struct {
	io.ReadCloser
	stop func() bool
}

func (s *stopReadCloser) Close() error {
	s.stop()
	return s.ReadCloser.Close()
}

// handlerWorkers runs in-process upstream handlers on reused goroutines,
// whose stacks have already grown: a fresh goroutine per request spends a
// measurable share of the request growing its stack.
var handlerWorkers = &workerPool{tasks: make(chan func())}

type workerPool struct{ tasks chan func() }

// run hands f to an idle worker, or starts one.
func (p *workerPool) run(f func()) {
	select {
	case p.tasks <- f:
	default:
		go p.work(f)
	}
}

// work runs f, then further tasks until idle for a while.
func (p *workerPool) work(f func()) {
	f()
	idle := time.NewTimer(30 * time.Second)
	defer idle.Stop()
	for {
		select {
		case f := <-p.tasks:
			f()
			idle.Reset(30 * time.Second)
		case <-idle.C:
			return
		}
	}
}
