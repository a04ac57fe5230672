package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"mime"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// A notification sent during a request must reach the client ahead of the
// request's answer. mcp-go's transports do not promise that: a handler's
// notification goes into the session's queue (100 deep, a full queue
// drops it), a forwarder goroutine writes it, and over Streamable HTTP
// that forwarder drops one it has dequeued but not yet written when the
// request ends first (it finds the request done once it gets the
// response's lock); over stdio a queued one may follow the answer. Our
// notifications therefore bypass the queue: a sink in the request's
// context writes each at once on the request's own stream, ahead of the
// answer, with the connection's back-pressure instead of a drop.

// notificationSink writes notifications on the stream of the request in
// progress.
type notificationSink interface {
	notify(n mcp.JSONRPCNotification) error
}

type sinkKey struct{}

// withSink returns ctx carrying sink.
func withSink(ctx context.Context, sink notificationSink) context.Context {
	return context.WithValue(ctx, sinkKey{}, sink)
}

// errRequestEnded is a sink's refusal once its request has answered.
var errRequestEnded = errors.New("the request has ended")

// notify sends one notification to the client of ctx: on the request's
// own stream when it can still take one, else through mcp-go's session
// queue (which reaches a client's standalone GET stream).
func (s *Server) notify(ctx context.Context, method string, params map[string]any) error {
	if sink, ok := ctx.Value(sinkKey{}).(notificationSink); ok {
		n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
			Notification: mcp.Notification{Method: method, Params: mcp.NotificationParams{AdditionalFields: params}}}
		if err := sink.notify(n); !errors.Is(err, errRequestEnded) {
			return err
		}
	}
	return s.mcp.SendNotificationToClient(ctx, method, params)
}

// lineSink writes notifications as lines on the stdio output, which
// lockedWriter keeps whole among mcp-go's own writes.
type lineSink struct{ w io.Writer }

func (l lineSink) notify(n mcp.JSONRPCNotification) error {
	b, err := json.Marshal(n)
	if err != nil {
		return err
	}
	_, err = l.w.Write(append(b, '\n'))
	return err
}

// requestStream is the response writer of one POST on the MCP endpoint,
// shared by mcp-go and the request's notifications. Before the first
// notification it passes mcp-go's writes through. A notification opens an
// SSE stream itself (status 200, text/event-stream) and is written as one
// event; mcp-go, which does not know, then answers as JSON: its header
// and status are dropped and its body is sent, at finish, as the stream's
// last event. When mcp-go has opened an SSE stream on its own, its writes
// are events already and pass through, between whole notifications.
type requestStream struct {
	w      http.ResponseWriter
	mu     sync.Mutex
	header http.Header // what mcp-go sets, sent with its status
	status int         // the status sent, 0 before
	sse    bool        // the response sent is an SSE stream
	ours   bool        // and the stream was opened by a notification
	hold   bool        // mcp-go's writes are a JSON answer to send as an event
	answer []byte      // that answer
	done   bool        // the request has ended
	// rewrite, when set and true, has mcp-go's writes checked for the
	// answer of a call that became a task (tasks.go).
	rewrite func() bool
}

func newRequestStream(w http.ResponseWriter) *requestStream {
	return &requestStream{w: w, header: make(http.Header)}
}

// Header is mcp-go's view of the response header.
func (s *requestStream) Header() http.Header { return s.header }

// WriteHeader sends mcp-go's status and header, unless a notification has
// opened the stream already.
func (s *requestStream) WriteHeader(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writeHeader(code)
}

func (s *requestStream) writeHeader(code int) {
	if s.status != 0 {
		if s.ours {
			s.hold = !isEventStreamType(s.header.Get("Content-Type"))
		}
		return
	}
	s.status = code
	maps.Copy(s.w.Header(), s.header)
	s.sse = isEventStreamType(s.header.Get("Content-Type"))
	s.w.WriteHeader(code)
}

// Write passes mcp-go's bytes on, or holds its JSON answer.
func (s *requestStream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status == 0 {
		s.writeHeader(http.StatusOK)
	}
	if s.hold {
		s.answer = append(s.answer, p...)
		return len(p), nil
	}
	if s.rewrite != nil && s.rewrite() {
		if _, err := s.w.Write(rewriteCreated(p)); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return s.w.Write(p)
}

// Flush sends what was written.
func (s *requestStream) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.hold {
		flush(s.w)
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (s *requestStream) Unwrap() http.ResponseWriter { return s.w }

// notify writes n as an SSE event, opening the stream if nothing was sent
// yet. It refuses with errRequestEnded once the request has answered, or
// when mcp-go has already begun a JSON answer.
func (s *requestStream) notify(n mcp.JSONRPCNotification) error {
	b, err := json.Marshal(n)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || s.status != 0 && !s.sse {
		return errRequestEnded
	}
	if s.status == 0 {
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		s.w.WriteHeader(http.StatusOK)
		s.status, s.sse, s.ours = http.StatusOK, true, true
	}
	if err := writeEvent(s.w, b); err != nil {
		return err
	}
	flush(s.w)
	return nil
}

// finish ends the request: a held answer goes out as the last event.
func (s *requestStream) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	if s.hold && len(s.answer) > 0 {
		_ = writeEvent(s.w, bytes.TrimSpace(s.answer))
		flush(s.w)
	}
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

// isEventStreamType reports whether a Content-Type is text/event-stream.
func isEventStreamType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "text/event-stream"
}
