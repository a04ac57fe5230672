package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"
)

// The transport, on mcp-go's public API: every message goes to
// MCPServer.HandleMessage with the client session in its context
// (MCPServer.WithContext); sessions are registered with RegisterSession,
// so that mcp-go's broadcasts reach them. The rest is the transport's own:
// the era of each request (D28), the 2025 era's sessions and streams, the
// 2026 era's header rules, and the encoding of every answer, whose id is
// the request's own bytes.

// handle runs one JSON-RPC message through mcp-go in ctx and returns its
// encoded answer (nil for a notification) and the answer's JSON-RPC error
// code (0 for a result). A panic is answered as an internal error.
func (s *Server) handle(ctx context.Context, id json.RawMessage, body []byte) (answer []byte, code int) {
	msg := func() (msg mcp.JSONRPCMessage) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("panic while handling a message", "panic", p)
				msg = mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION,
					Error: mcp.JSONRPCErrorDetails{Code: mcp.INTERNAL_ERROR, Message: "internal error"}}
			}
		}()
		return s.mcp.HandleMessage(ctx, body)
	}()
	if msg == nil || id == nil {
		if e, ok := msg.(mcp.JSONRPCError); ok && id == nil {
			// A notification mcp-go could not take (no jsonrpc member,
			// say) is answered with id null, as JSON-RPC asks.
			b, _ := json.Marshal(errorAnswer{JSONRPC: mcp.JSONRPC_VERSION, ID: json.RawMessage("null"), Error: e.Error})
			return b, e.Error.Code
		}
		return nil, 0
	}
	return encodeAnswer(id, msg)
}

// resultAnswer and errorAnswer are a JSON-RPC answer with the request's id
// as the client wrote it (mcp-go would read a number into a float64).
type resultAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type errorAnswer struct {
	JSONRPC string                  `json:"jsonrpc"`
	ID      json.RawMessage         `json:"id"`
	Error   mcp.JSONRPCErrorDetails `json:"error"`
}

// encodeAnswer encodes mcp-go's answer to request id.
func encodeAnswer(id json.RawMessage, msg mcp.JSONRPCMessage) ([]byte, int) {
	var v any
	code := 0
	switch m := msg.(type) {
	case mcp.JSONRPCResponse:
		v = resultAnswer{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Result: m.Result}
	case *mcp.JSONRPCResponse:
		v = resultAnswer{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Result: m.Result}
	case mcp.JSONRPCError:
		v, code = errorAnswer{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Error: m.Error}, m.Error.Code
	case *mcp.JSONRPCError:
		v, code = errorAnswer{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Error: m.Error}, m.Error.Code
	default:
		v = msg
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(errorAnswer{JSONRPC: mcp.JSONRPC_VERSION, ID: id,
			Error: mcp.JSONRPCErrorDetails{Code: mcp.INTERNAL_ERROR, Message: "cannot encode the answer: " + err.Error()}})
		code = mcp.INTERNAL_ERROR
	}
	return b, code
}

// serveMCP serves the MCP endpoint: POST carries messages, GET opens a
// 2025-era session's standalone stream, DELETE ends a session.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		s.servePost(w, r)
	case http.MethodGet, http.MethodDelete:
		if mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
			w.Header().Set("Allow", http.MethodPost)
			writeRPCError(w, http.StatusMethodNotAllowed, mcp.INVALID_REQUEST,
				r.Method+" is not part of protocol version "+mcp.ProtocolVersion20260728+": notifications come through subscriptions/listen")
			return
		}
		sid := r.Header.Get(headerSessionID)
		if sid == "" {
			writeRPCError(w, http.StatusBadRequest, -32000, "Bad Request: Mcp-Session-Id header is required")
			return
		}
		e, ok := s.table.session(sid)
		if !ok {
			writeSessionNotFound(w, nil)
			return
		}
		if r.Method == http.MethodGet {
			s.serveStandalone(w, r, e.session)
			return
		}
		s.endSession(sid)
		w.WriteHeader(http.StatusOK)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeRPCError(w, http.StatusMethodNotAllowed, -32000, "Method not allowed")
	}
}

// headerSessionID is the 2025 era's session header.
const headerSessionID = mcp.HeaderSessionID

func writeSessionNotFound(w http.ResponseWriter, id json.RawMessage) {
	writeFault(w, http.StatusNotFound, &rpcFault{id: id, code: -32001,
		msg: "Session not found: it was never created, was deleted, or the server restarted; initialize a new session"})
}

// servePost checks a POST's body (size, read time, JSON-RPC framing) and
// serves its message in its era.
func (s *Server) servePost(w http.ResponseWriter, r *http.Request) {
	if !isJSONType(r.Header.Get("Content-Type")) {
		writeRPCError(w, http.StatusUnsupportedMediaType, -32600, "Unsupported Content-Type: a POST to the MCP endpoint carries application/json")
		return
	}
	body, err := s.readBody(w, r)
	if err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, os.ErrDeadlineExceeded) {
			status = http.StatusRequestTimeout
		}
		writeRPCError(w, status, -32700, "Cannot read request body: "+err.Error())
		return
	}
	if int64(len(body)) > s.cfg.MaxBodyBytes {
		writeFault(w, http.StatusRequestEntityTooLarge, &rpcFault{id: idFromPrefix(body[:min(len(body), prefixKeep)]), code: -32600,
			msg: fmt.Sprintf("Request body too large: the limit is %d bytes", s.cfg.MaxBodyBytes)})
		return
	}
	env, fault := inspect(body)
	if fault != nil {
		writeFault(w, http.StatusBadRequest, fault)
		return
	}
	if env.batch {
		writeFault(w, http.StatusBadRequest, &rpcFault{code: mcp.INVALID_REQUEST,
			msg: "Invalid Request: JSON-RPC batches are not part of MCP since 2025-06-18; send one message per request"})
		return
	}
	if modernRequest(r.Header, body) {
		s.serveModern(w, r, env, body)
		return
	}
	s.serveSession(w, r, env, body)
}

// serveSession serves a 2025-era message: initialize opens a session, any
// other message belongs to the session its Mcp-Session-Id names.
func (s *Server) serveSession(w http.ResponseWriter, r *http.Request, env envelope, body []byte) {
	if env.method() == string(mcp.MethodInitialize) {
		s.initialize(w, r, env, body)
		return
	}
	if v := r.Header.Get(mcp.HeaderProtocolVersion); v != "" && !mcp.IsValidProtocolVersion(v) {
		writeFault(w, http.StatusBadRequest, &rpcFault{id: env.ID, code: mcp.INVALID_REQUEST, msg: "Unsupported protocol version: " + quoteClip(v)})
		return
	}
	sid := r.Header.Get(headerSessionID)
	if sid == "" {
		// Neither era: no session to belong to, no protocol version of
		// its own (D28).
		writeFault(w, http.StatusBadRequest, &rpcFault{id: env.ID, code: -32000,
			msg: "Bad Request: Mcp-Session-Id header is required (call initialize first), or declare protocol version " +
				mcp.ProtocolVersion20260728 + " in the request's _meta and the " + mcp.HeaderProtocolVersion + " header"})
		return
	}
	e, ok := s.table.session(sid)
	if !ok {
		writeSessionNotFound(w, env.ID)
		return
	}
	if env.Method == nil {
		// The client's answer to a request of the server.
		e.session.answer(env.ID, env.Result, env.Error)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if s.fastCall(w, r, e.session, body) {
		return
	}
	// tools/list, answered as before (staticanswers.go).
	key, id, static := sessionStaticKey(r.Header.Get(mcp.HeaderProtocolVersion), body)
	if static && s.serveStatic(w, key, id) {
		return
	}
	st := newResponseStream(w)
	ctx := withSink(s.mcp.WithContext(r.Context(), e.session), st)
	answer, code := s.handle(ctx, env.ID, body)
	if answer == nil {
		st.accepted()
		return
	}
	if static && code == 0 && !st.streamed() {
		s.statics.keep(key, answer)
	}
	st.answer(http.StatusOK, answer, nil)
}

// initialize opens a 2025-era session: mcp-go answers the handshake, and
// when it succeeds the session is entered in the table and its id sent.
func (s *Server) initialize(w http.ResponseWriter, r *http.Request, env envelope, body []byte) {
	session := newClientSession(uuid.NewString())
	st := newResponseStream(w)
	ctx := withSink(s.mcp.WithContext(r.Context(), session), st)
	answer, code := s.handle(ctx, env.ID, body)
	if answer == nil {
		st.accepted()
		return
	}
	var extra http.Header
	if code == 0 {
		s.openSession(session)
		extra = http.Header{headerSessionID: {session.id}}
	}
	st.answer(http.StatusOK, answer, extra)
}

// openSession enters a 2025-era HTTP session in the table with its gateway
// state, registers it with mcp-go, and forwards mcp-go's notifications to
// its standalone stream for as long as it lives.
func (s *Server) openSession(session *clientSession) {
	session.conn = s.newConn(session)
	s.table.addSession(session)
	if err := s.mcp.RegisterSession(context.Background(), session); err != nil {
		s.log.Error("registering an MCP session", "session", session.id, "err", err)
	}
	go s.forward(session, func(msg []byte) {
		session.mu.Lock()
		sink := session.standalone
		session.mu.Unlock()
		if sink == nil || sink.send(msg) != nil {
			// Nowhere to go: no standalone stream is open. mcp-go's own
			// transport drops these too; they are counted.
			session.notesDropped.Add(1)
		}
	})
}

// forward writes mcp-go's notifications to session as deliver says, until
// the session ends.
func (s *Server) forward(session *clientSession, deliver func([]byte)) {
	for {
		select {
		case n := <-session.notes:
			deliver(encodeNotification(n, nil))
		case <-session.ended:
			return
		}
	}
}

// encodeNotification encodes n, tagged with the subscription id of the
// subscriptions/listen stream it is on, if any.
func encodeNotification(n mcp.JSONRPCNotification, subscription any) []byte {
	if subscription != nil {
		meta := make(map[string]any, len(n.Params.Meta)+1)
		maps.Copy(meta, n.Params.Meta)
		meta[mcp.MetaKeySubscriptionID] = subscription
		n.Params.Meta = meta
	}
	b, err := json.Marshal(n)
	if err != nil {
		b, _ = json.Marshal(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: n.Method}})
	}
	return b
}

// endSession ends a 2025-era session: mcp-go forgets it, requests waiting
// for its client fail, its standalone stream closes, and its reasoning
// session is released so another connection or process can open it.
func (s *Server) endSession(id string) bool {
	e := s.table.removeSession(id)
	if e == nil {
		return false
	}
	s.mcp.UnregisterSession(context.Background(), id)
	e.session.end()
	e.session.conn.Ledger.Close()
	return true
}

// serveStandalone holds a 2025-era session's standalone SSE stream open:
// requests of the server outside any request of the client, and mcp-go's
// notifications, are written on it. A session has at most one.
func (s *Server) serveStandalone(w http.ResponseWriter, r *http.Request, session *clientSession) {
	stream := &eventStream{w: w}
	if !session.setStandalone(stream) {
		writeRPCError(w, http.StatusConflict, -32000, "Conflict: this session's stream is already open")
		return
	}
	defer session.setStandalone(nil)
	defer stream.close()
	stream.mu.Lock()
	openEventStream(w)
	flush(w)
	stream.mu.Unlock()
	select {
	case <-r.Context().Done():
	case <-session.ended:
	case <-s.closing:
	}
}

// modernSessions numbers the 2026 era's one-request sessions: mcp-go keys
// a request's cancellation by its session id and request id.
var modernSessions atomic.Int64

// serveModern serves a 2026-era request: its headers are checked against
// its body, then mcp-go handles it with a session of its own, whose
// notifications go on the request's stream ahead of the answer.
func (s *Server) serveModern(w http.ResponseWriter, r *http.Request, env envelope, body []byte) {
	if env.Method == nil {
		writeFault(w, http.StatusBadRequest, &rpcFault{id: env.ID, code: mcp.INVALID_REQUEST,
			msg: "Invalid Request: protocol version " + mcp.ProtocolVersion20260728 + " has no requests from the server, so nothing a client sends is an answer"})
		return
	}
	// A plain call of thoughtbox_gateway (fastmodern.go).
	if s.fastModernCall(w, r, body) {
		return
	}
	// The tasks extension's methods and checks (tasks.go).
	if answer, status, ok := s.taskRequest(env, r.Header); ok {
		writeJSON(w, status, answer)
		return
	}
	refusal, status, body := s.taskToolCall(env, body)
	if refusal != nil {
		writeJSON(w, status, refusal)
		return
	}
	// The conformance fixtures' one answer mcp-go cannot give
	// (fixtures.go); off unless --conformance-fixtures.
	if s.serveFixture(w, r, body) {
		return
	}
	if f := checkModernRequest(r.Header, env, s.mcp); f != nil {
		writeFault(w, statusFor(f.code), f)
		return
	}
	// server/discover and tools/list, answered as before (staticanswers.go).
	key, id, static := modernStaticKey(body)
	if static && s.serveStatic(w, key, id) {
		return
	}
	st := newResponseStream(w)
	ctx := withSink(s.taskContext(r.Context()), st)
	answer, code := s.serveOnce(ctx, st, env, body)
	if answer == nil {
		st.accepted()
		return
	}
	status = http.StatusOK
	if code != 0 {
		status = statusFor(code)
	}
	answer = rewriteCreated(answer)
	if static && code == 0 && !st.streamed() {
		s.statics.keep(key, answer)
	}
	st.answer(status, answer, nil)
}

// serveOnce handles a 2026-era message with a session of its own, whose
// notifications from mcp-go are written to sink while it runs, all of them
// before the answer. A subscriptions/listen's session is registered, so
// that broadcasts reach it, and its messages carry its subscription id.
func (s *Server) serveOnce(ctx context.Context, sink messageSink, env envelope, body []byte) ([]byte, int) {
	depth := notesDepth
	if quietMethod(env.method()) {
		depth = quietNotesDepth
	}
	session := newClientSessionOfDepth("request-"+strconv.FormatInt(modernSessions.Add(1), 10), depth)
	defer session.end()
	ctx = mcpsrv.WithSupportedProtocolVersions(s.mcp.WithContext(ctx, session), mcp.ValidProtocolVersions)
	var subscription any
	if env.method() == string(mcp.MethodSubscriptionsListen) && env.ID != nil {
		_ = json.Unmarshal(env.ID, &subscription)
		if err := s.mcp.RegisterSession(ctx, session); err == nil {
			defer s.mcp.UnregisterSession(context.Background(), session.id)
		}
	}
	deliver := func(n mcp.JSONRPCNotification) { _ = sink.send(encodeNotification(n, subscription)) }
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case n := <-session.notes:
				deliver(n)
			case <-stop:
				return
			}
		}
	}()
	answer, code := s.handle(ctx, env.ID, body)
	close(stop)
	<-done
	for {
		select {
		case n := <-session.notes:
			deliver(n)
		default:
			return answer, code
		}
	}
}

// checkModernRequest applies the 2026 era's transport rules to a request
// over HTTP (SEP-2243, SEP-2575): the protocol version in the header and
// in _meta, the same and one this server speaks; no Last-Event-ID; and the
// Mcp-Method, Mcp-Name and Mcp-Param-* headers agreeing with the body. It
// returns the error to answer, or nil.
func checkModernRequest(h http.Header, env envelope, srv *mcpsrv.MCPServer) *rpcFault {
	fault := func(code int, msg string) *rpcFault { return &rpcFault{id: env.ID, code: code, msg: msg} }
	version, name := modernParams(env.Params)
	header := h.Get(mcp.HeaderProtocolVersion)
	switch {
	case h.Get(mcp.HeaderLastEventID) != "":
		return fault(mcp.HEADER_MISMATCH, "Last-Event-ID is not part of protocol version "+mcp.ProtocolVersion20260728+": streams are not resumable; send the request again with a new id")
	case header == "":
		return fault(mcp.HEADER_MISMATCH, mcp.HeaderProtocolVersion+" header is required for requests carrying "+mcp.MetaKeyProtocolVersion)
	case version == "":
		return fault(mcp.INVALID_PARAMS, "missing or invalid _meta field "+mcp.MetaKeyProtocolVersion)
	case header != version:
		return fault(mcp.HEADER_MISMATCH, mcp.HeaderProtocolVersion+" header "+quoteClip(header)+" does not match the request's "+mcp.MetaKeyProtocolVersion+" "+quoteClip(version))
	case !mcp.IsValidProtocolVersion(version):
		e := mcp.UnsupportedProtocolVersionError{Version: version, Supported: mcp.ValidProtocolVersions}.JSONRPCError()
		f := fault(e.Error.Code, e.Error.Message)
		f.data = e.Error.Data
		return f
	}
	method := mcp.MCPMethod(env.method())
	if err := mcp.ValidateStandardHeaders(h.Get, version, method, env.Params); err != nil {
		return fault(mcp.HEADER_MISMATCH, err.Error())
	}
	if method == mcp.MethodToolsCall {
		if tool := srv.GetTool(name); tool != nil {
			lookup := func(name string) (string, bool) {
				v := h.Values(name)
				if len(v) == 0 {
					return "", false
				}
				return v[0], true
			}
			if err := mcp.ValidateParamHeadersLookup(lookup, &tool.Tool, env.Params); err != nil {
				var mismatch mcp.HeaderMismatchError
				if errors.As(err, &mismatch) {
					return fault(mcp.HEADER_MISMATCH, err.Error())
				}
				return fault(mcp.INVALID_PARAMS, err.Error())
			}
		}
	}
	return nil
}

// sweep ends the 2025-era sessions idle past the timeout, until the
// server closes.
func (s *Server) sweep() {
	if s.cfg.SessionTimeout <= 0 {
		return
	}
	t := time.NewTicker(sweepEvery(s.cfg.SessionTimeout))
	defer t.Stop()
	for {
		select {
		case <-t.C:
			for _, id := range s.table.idle() {
				s.endSession(id)
			}
		case <-s.closing:
			return
		}
	}
}

// CloseSessions ends every 2025-era MCP session, which also ends their
// standalone streams; call it before shutting an http.Server down.
func (s *Server) CloseSessions(context.Context) {
	for _, id := range s.table.sessions() {
		s.endSession(id)
	}
}
