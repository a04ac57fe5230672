package target

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// recording wraps an mcp-go client transport and writes every JSON-RPC
// message that crosses it to a transcript: requests and notifications the
// harness sends, responses and notifications it receives, and requests the
// server sends to the client together with the harness's answers.
type recording struct {
	inner  transport.Interface
	rec    *transcript.Recorder
	bypass bool // traffic that skips the sidecar in front of the target

	mu     sync.RWMutex
	notify func(mcp.JSONRPCNotification)
}

// recordingHTTP is recording for HTTP transports, which the client also
// uses as transport.HTTPConnection.
type recordingHTTP struct {
	*recording
	http transport.HTTPConnection
}

// SetProtocolVersion forwards the negotiated version to the HTTP transport.
func (r *recordingHTTP) SetProtocolVersion(v string) { r.http.SetProtocolVersion(v) }

// record wraps inner; the result implements the same optional interfaces the
// mcp-go client looks for.
func record(inner transport.Interface, rec *transcript.Recorder, bypass bool) transport.Interface {
	r := &recording{inner: inner, rec: rec, bypass: bypass}
	inner.SetNotificationHandler(r.onNotification)
	if h, ok := inner.(transport.HTTPConnection); ok {
		return &recordingHTTP{recording: r, http: h}
	}
	return r
}

func (r *recording) session() string { return r.inner.GetSessionId() }

// add records an entry of this connection. Its message, if any, is
// marshal's or marshalResponse's: compact.
func (r *recording) add(e transcript.Entry) {
	e.Session, e.Bypass, e.Compact = r.session(), r.bypass, true
	r.rec.Add(e)
}

func marshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"unmarshalable": err.Error()})
	}
	return b
}

// marshalResponse encodes resp as marshal does, but puts its result in as
// the transport's decoder read it (valid JSON, which that decoder checked)
// when it is on one line, instead of checking and compacting it again:
// answers of 15 KB made that most of what keeping a transcript cost.
func marshalResponse(resp *transport.JSONRPCResponse) json.RawMessage {
	if resp.Error != nil || len(resp.Result) == 0 || bytes.IndexByte(resp.Result, '\n') >= 0 {
		return marshal(resp)
	}
	head := marshal(transport.JSONRPCResponse{JSONRPC: resp.JSONRPC, ID: resp.ID}) // an object: ends in '}'
	out := make([]byte, 0, len(head)+len(resp.Result)+len(`,"result":`))
	out = append(out, head[:len(head)-1]...)
	out = append(out, `,"result":`...)
	out = append(out, resp.Result...)
	return append(out, '}')
}

// Start starts the wrapped transport.
func (r *recording) Start(ctx context.Context) error { return r.inner.Start(ctx) }

// SendRequest records the request and its response (or the transport error).
func (r *recording) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, _, err := r.call(ctx, req)
	return resp, err
}

// decoded is a tools/call result as the recording decoded it.
type decoded struct {
	result ToolResult
	err    error
}

// recordingOf returns the recording of a transport record made.
func recordingOf(t transport.Interface) *recording {
	switch r := t.(type) {
	case *recording:
		return r
	case *recordingHTTP:
		return r.recording
	}
	panic("target: not a recording transport")
}

// call sends req, records it and its response (or the transport error), and
// returns a tools/call result decoded (nil for other methods and errors).
// For a recorder that keeps no file the messages are not encoded: the
// entries carry the operation and outcome, which is all it counts.
func (r *recording) call(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, *decoded, error) {
	keep := r.rec.Keeps()
	var msg json.RawMessage
	op, ok := "", false
	if !keep {
		op, ok = operationOf(req)
	}
	if !ok {
		msg = marshal(req)
		op = transcript.Operation(req.Method, msg)
	}
	r.add(transcript.Entry{Dir: transcript.Send, Kind: transcript.Request, Method: req.Method, Operation: op,
		ID: req.ID.Value(), Message: msg})
	start := time.Now()
	resp, err := r.inner.SendRequest(ctx, req)
	took := time.Since(start).Seconds()
	if err != nil {
		if msg == nil {
			msg = marshal(req)
		}
		// The request goes with the error, so that the counts can leave
		// out a request that got no answer.
		r.add(transcript.Entry{Dir: transcript.Recv, Kind: transcript.TransportErr, Method: req.Method, Operation: op,
			ID: req.ID.Value(), Message: msg, Text: err.Error(), RoundTrip: took})
		return nil, nil, err
	}
	// The answer names the request's method and operation, so that the
	// counts can tell its outcome (Status) per method and operation.
	e := transcript.Entry{Dir: transcript.Recv, Kind: transcript.Response, Method: req.Method, Operation: op,
		ID: req.ID.Value(), Status: outcome.OK, RoundTrip: took}
	if keep {
		e.Message = marshalResponse(resp)
	}
	var dec *decoded
	if req.Method == "tools/call" && resp.Result != nil {
		dec = &decoded{}
		dec.result, e.Blocks, dec.err = decodeToolResult(resp.Result, keep)
		if dec.result.IsError {
			e.Status = outcome.ToolError
		}
	}
	if resp.Error != nil {
		e.Status = outcome.Error
	}
	for _, b := range e.Blocks {
		if b.Unknown {
			r.rec.Warn("tools/call %v returned a content block of unknown type %q; it is kept in the transcript", req.ID.Value(), b.Type)
		}
	}
	r.add(e)
	return resp, dec, nil
}

// operationOf names the tool and operation of a tools/call request whose
// params the harness built (maps of strings), as transcript.Operation
// reads them from the encoded message; it reports false for params of
// another shape, which are encoded and read instead.
func operationOf(req transport.JSONRPCRequest) (string, bool) {
	if req.Method != "tools/call" {
		return "", true
	}
	p, ok := req.Params.(map[string]any)
	if !ok {
		return "", false
	}
	name, ok := p["name"].(string)
	if !ok {
		return "", false
	}
	switch a := p["arguments"].(type) {
	case map[string]any:
		switch o := a["operation"].(type) {
		case string:
			return name + "/" + o, true
		case nil:
			if _, present := a["operation"]; !present {
				return name + "/", true
			}
		}
	case nil:
		if _, present := p["arguments"]; !present {
			return name + "/", true
		}
	}
	return "", false
}

// SendNotification records and sends a notification.
func (r *recording) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	r.add(transcript.Entry{Dir: transcript.Send, Kind: transcript.Notification, Method: n.Method, Message: marshal(n)})
	err := r.inner.SendNotification(ctx, n)
	if err != nil {
		r.add(transcript.Entry{Dir: transcript.Send, Kind: transcript.TransportErr, Method: n.Method, Text: err.Error()})
	}
	return err
}

func (r *recording) onNotification(n mcp.JSONRPCNotification) {
	r.add(transcript.Entry{Dir: transcript.Recv, Kind: transcript.Notification, Method: n.Method, Message: marshal(n)})
	r.mu.RLock()
	h := r.notify
	r.mu.RUnlock()
	if h != nil {
		h(n)
	}
}

// SetNotificationHandler sets who receives notifications after they are recorded.
func (r *recording) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	r.mu.Lock()
	r.notify = h
	r.mu.Unlock()
}

// SetRequestHandler installs the client's handler of server-initiated
// requests, recording each request and the answer given.
func (r *recording) SetRequestHandler(h transport.RequestHandler) {
	bidir, ok := r.inner.(transport.BidirectionalInterface)
	if !ok {
		return
	}
	bidir.SetRequestHandler(func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		r.add(transcript.Entry{Dir: transcript.Recv, Kind: transcript.Request, Method: req.Method,
			ID: req.ID.Value(), Message: marshal(req)})
		resp, err := h(ctx, req)
		if err != nil {
			r.add(transcript.Entry{Dir: transcript.Send, Kind: transcript.TransportErr, Method: req.Method,
				ID: req.ID.Value(), Text: err.Error()})
			return resp, err
		}
		r.add(transcript.Entry{Dir: transcript.Send, Kind: transcript.Response, Method: req.Method,
			ID: req.ID.Value(), Message: marshal(resp)})
		return resp, nil
	})
}

// Close closes the wrapped transport (an HTTP transport sends DELETE).
func (r *recording) Close() error {
	err := r.inner.Close()
	r.add(transcript.Entry{Kind: transcript.Note, Text: "connection closed"})
	return err
}

// GetSessionId returns the MCP session id.
func (r *recording) GetSessionId() string { return r.inner.GetSessionId() }
