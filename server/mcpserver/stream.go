package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// Every message the server sends a client is written by the transport on a
// stream it owns: the answer of a request, and ahead of it the request's
// notifications and its requests to the client (sampling, roots), on the
// request's own response (HTTP) or as lines (stdio); the rest on a
// session's standalone stream (a 2025-era GET, stdout). A request's
// messages reach the client before its answer, with the connection's
// back-pressure instead of a queue that drops.

// messageSink writes whole JSON-RPC messages to a client.
type messageSink interface {
	send(msg []byte) error
}

type sinkKey struct{}

// withSink returns ctx carrying the sink of the request in progress.
func withSink(ctx context.Context, sink messageSink) context.Context {
	return context.WithValue(ctx, sinkKey{}, sink)
}

// errRequestEnded is a request sink's refusal once its request has answered.
var errRequestEnded = errors.New("the request has ended")

// notify sends one notification to the client of ctx: on the request's
// own stream while it can take one, else through mcp-go (which hands it to
// the session's queue, and the transport to its standalone stream).
func (s *Server) notify(ctx context.Context, method string, params map[string]any) error {
	if sink, ok := ctx.Value(sinkKey{}).(messageSink); ok {
		b, err := json.Marshal(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
			Notification: mcp.Notification{Method: method, Params: mcp.NotificationParams{AdditionalFields: params}}})
		if err != nil {
			return err
		}
		if err := sink.send(b); !errors.Is(err, errRequestEnded) {
			return err
		}
	}
	return s.mcp.SendNotificationToClient(ctx, method, params)
}

// lineWriter writes whole messages as lines on the stdio output: one Write
// each, under a lock, so that lines from several goroutines never mix.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) send(msg []byte) error {
	buf := make([]byte, 0, len(msg)+1)
	buf = append(append(buf, msg...), '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.w.Write(buf)
	return err
}

// responseStream is the response of one POST on the MCP endpoint. Its
// answer is one JSON body, unless a message was sent ahead of it: the
// first opens an SSE stream (200, text/event-stream), and every message,
// the answer last, is an event on it.
type responseStream struct {
	mu   sync.Mutex
	w    http.ResponseWriter
	sse  bool // the SSE stream is open
	done bool // the answer was written
}

func newResponseStream(w http.ResponseWriter) *responseStream { return &responseStream{w: w} }

// send writes msg as an event, opening the stream if nothing was sent yet;
// once the answer is written it refuses with errRequestEnded.
func (st *responseStream) send(msg []byte) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return errRequestEnded
	}
	if !st.sse {
		openEventStream(st.w)
		st.sse = true
	}
	if err := writeEvent(st.w, msg); err != nil {
		return err
	}
	flush(st.w)
	return nil
}

// answer writes the request's answer: the stream's last event, or a JSON
// body with status and the headers in extra.
func (st *responseStream) answer(status int, msg []byte, extra http.Header) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.done = true
	if st.sse {
		_ = writeEvent(st.w, msg)
		flush(st.w)
		return
	}
	h := st.w.Header()
	maps.Copy(h, extra)
	h.Set("Content-Type", "application/json")
	st.w.WriteHeader(status)
	_, _ = st.w.Write(append(msg, '\n'))
}

// streamed reports whether the stream was opened: something was sent
// before the answer.
func (st *responseStream) streamed() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sse
}

// accepted answers a message that needs no answer (a notification, a
// client's response): 202, or the end of a stream already opened.
func (st *responseStream) accepted() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.done = true
	if !st.sse {
		st.w.WriteHeader(http.StatusAccepted)
	}
}

// eventStream is a session's standalone SSE stream (a 2025-era GET).
type eventStream struct {
	mu     sync.Mutex
	w      http.ResponseWriter
	closed bool // its handler has returned, or is returning
}

// errStreamClosed is a standalone stream's refusal once it has closed.
var errStreamClosed = errors.New("the stream has closed")

func (e *eventStream) send(msg []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return errStreamClosed
	}
	if err := writeEvent(e.w, msg); err != nil {
		return err
	}
	flush(e.w)
	return nil
}

// close ends the stream's writes: its handler may return once close has.
func (e *eventStream) close() {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
}

// openEventStream sends the header of an SSE response.
func openEventStream(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

// writeEvent writes one SSE message event carrying data (one line of JSON).
func writeEvent(w io.Writer, data []byte) error {
	buf := make([]byte, 0, len(data)+24)
	buf = append(buf, "event: message\ndata: "...)
	buf = append(buf, data...)
	buf = append(buf, "\n\n"...)
	_, err := w.Write(buf)
	return err
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
