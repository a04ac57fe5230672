package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// MCPPath is the path of the Streamable HTTP endpoint.
const MCPPath = "/mcp"

// modernRequest reports whether a POST without a session belongs to the
// 2026 era: its Mcp-Protocol-Version header or its _meta declares 2026-07-28
// or later (the transport then checks that the two agree).
func modernRequest(h http.Header, body []byte) bool {
	return mcp.IsModernProtocol(h.Get(mcp.HeaderProtocolVersion)) || modernBody(body)
}

// metaVersionKey is the _meta key of a 2026-era request's protocol version.
var metaVersionKey = []byte(mcp.MetaKeyProtocolVersion)

// modernBody reports whether a message declares 2026-07-28 or later in its
// _meta; a message that does not name the key at all is not read further.
func modernBody(body []byte) bool {
	if !bytes.Contains(body, metaVersionKey) {
		return false
	}
	var m struct {
		Params struct {
			Meta *mcp.Meta `json:"_meta"`
		} `json:"params"`
	}
	return json.Unmarshal(body, &m) == nil && mcp.IsModernProtocol(m.Params.Meta.ProtocolVersion())
}

// Handler returns the HTTP handler: /mcp (Streamable HTTP), /health and
// /info. Every request's Host and Origin headers are checked first.
func (s *Server) Handler() http.Handler {
	s.httpOnce.Do(func() {
		opts := []mcpsrv.StreamableHTTPOption{
			mcpsrv.WithSessionIdManager(s.ids),
			mcpsrv.WithDisableLocalhostProtection(true),
			mcpsrv.WithStreamableHTTPLogger(s.log),
		}
		if s.cfg.SessionTimeout > 0 {
			// Sessions idle this long are terminated: their id gets 404,
			// and their reasoning session is released.
			opts = append(opts, mcpsrv.WithSessionIdleTTL(s.cfg.SessionTimeout))
		}
		s.http = mcpsrv.NewStreamableHTTPServer(s.mcp, opts...)
	})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "transport": "streamable-http", "server": "thoughtbox", "version": Version})
	})
	mux.HandleFunc("GET /info", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "server": map[string]string{"name": Name, "version": Version}})
	})
	mux.Handle(MCPPath, http.HandlerFunc(s.serveMCP))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeRPCError(w, http.StatusNotFound, -32601, "Not found: "+r.URL.Path+" (the MCP endpoint is "+MCPPath+")")
	})
	return s.guardHosts(mux)
}

// serveMCP enforces the body limit and read timeout, JSON-RPC framing and
// the session rules, then hands the request to the Streamable HTTP
// transport.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	var body []byte
	modern := false
	switch r.Method {
	case http.MethodPost:
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			writeRPCError(w, http.StatusUnsupportedMediaType, -32600, "Unsupported Content-Type: a POST to the MCP endpoint carries application/json")
			return
		}
		var err error
		body, err = s.readBody(w, r)
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
		modern = sid == "" && modernRequest(r.Header, body)
		if modern {
			// The tasks extension's methods and checks (tasks.go).
			if answer, status, ok := s.taskRequest(env, r.Header); ok {
				writeJSON(w, status, answer)
				return
			}
			if s.emptyListen(w, env, r.Header) {
				return
			}
			var answer any
			var status int
			if answer, status, body = s.taskToolCall(env, body); answer != nil {
				writeJSON(w, status, answer)
				return
			}
			// The conformance fixtures' one answer mcp-go cannot give
			// (fixtures.go); off unless --conformance-fixtures.
			if s.serveFixture(w, r, body) {
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		if sid == "" && !modern && env.method() != string(mcp.MethodInitialize) {
			// Neither era: no session to belong to, no protocol version
			// of its own (D28).
			writeFault(w, http.StatusBadRequest, &rpcFault{id: env.ID, code: -32000,
				msg: "Bad Request: Mcp-Session-Id header is required (call initialize first), or declare protocol version " +
					mcp.ProtocolVersion20260728 + " in the request's _meta and the " + mcp.HeaderProtocolVersion + " header"})
			return
		}
	case http.MethodGet, http.MethodDelete:
		if sid == "" && !mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
			writeRPCError(w, http.StatusBadRequest, -32000, "Bad Request: Mcp-Session-Id header is required")
			return
		}
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeRPCError(w, http.StatusMethodNotAllowed, -32000, "Method not allowed")
		return
	}
	if sid != "" && !s.ids.Known(sid) {
		writeRPCError(w, http.StatusNotFound, -32001, "Session not found: it was never created, was deleted, or the server restarted; initialize a new session")
		return
	}
	if r.Method == http.MethodPost && sid != "" && s.fastCall(w, r, sid, body) {
		return
	}
	s.noteSlow(sid)
	if r.Method == http.MethodPost {
		// The request's notifications are written on its own response
		// (requeststream.go).
		st := newRequestStream(w)
		ctx := r.Context()
		if modern {
			ctx = s.taskContext(ctx)
			st.rewrite = s.tasks.Created
		}
		s.http.ServeHTTP(st, r.WithContext(withSink(ctx, st)))
		st.finish()
		return
	}
	s.http.ServeHTTP(w, r)
}

// readBody reads a POST body, at most one byte over the limit, within the
// read timeout: a client sending it slowly cannot hold the connection. When
// the read fails the connection is closed after the answer.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.cfg.ReadTimeout))
	body, err := io.ReadAll(io.LimitReader(r.Body, s.cfg.MaxBodyBytes+1))
	if err != nil {
		w.Header().Set("Connection", "close")
		return nil, err
	}
	_ = rc.SetReadDeadline(time.Time{})
	return body, nil
}

// writeFault writes a JSON-RPC error response with an HTTP status.
func writeFault(w http.ResponseWriter, status int, f *rpcFault) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(faultJSON(f))
}

// guardHosts rejects requests whose Host or Origin header names a host the
// server is not bound to (DNS-rebinding protection). Binding to 0.0.0.0 or
// :: turns the check off.
func (s *Server) guardHosts(next http.Handler) http.Handler {
	ok := s.hostAllowed()
	if ok == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !ok(hostOnly(r.Host)) {
			writeRPCError(w, http.StatusForbidden, -32000, "Invalid Host header: "+r.Host)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" {
			u, err := url.Parse(origin)
			if err != nil || !ok(u.Hostname()) {
				writeRPCError(w, http.StatusForbidden, -32000, "Invalid Origin header: "+origin)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed returns the check of a host name against the bind address
// (with the loopback names for a loopback address, and AllowedHosts); nil
// when the server binds every interface.
func (s *Server) hostAllowed() func(host string) bool {
	bind := strings.Trim(s.cfg.Host, "[]")
	if bind == "0.0.0.0" || bind == "::" || bind == "" {
		return nil
	}
	allowed := []string{strings.ToLower(bind)}
	if isLoopback(bind) {
		allowed = append(allowed, "localhost", "127.0.0.1", "::1")
	}
	for _, h := range s.cfg.AllowedHosts {
		allowed = append(allowed, strings.ToLower(strings.Trim(h, "[]")))
	}
	return func(host string) bool { return slices.Contains(allowed, strings.ToLower(host)) }
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return strings.Trim(h, "[]")
	}
	return strings.Trim(hostport, "[]")
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := jsonx.Compact(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeRPCError writes a JSON-RPC error envelope with an HTTP status.
func writeRPCError(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": code, "message": msg}, "id": nil})
}

// CloseSessions ends every MCP session of the HTTP transport, which also
// ends their GET streams; call it before shutting an http.Server down.
func (s *Server) CloseSessions(ctx context.Context) {
	if s.http != nil {
		s.http.CloseSessions(ctx)
	}
}

// ListenAndServe serves HTTP on the configured host and port until ctx ends,
// then shuts down gracefully: it stops accepting requests, lets those in
// flight finish, closes MCP sessions and flushes the store. ready, if not
// nil, receives the listener's address once it accepts connections.
func (s *Server) ListenAndServe(ctx context.Context, ready func(addr net.Addr)) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.Port)))
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: s.cfg.ReadTimeout, IdleTimeout: s.cfg.IdleTimeout}
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return errors.Join(err, s.Close())
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.CloseSessions(shutdownCtx)
	err = srv.Shutdown(shutdownCtx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return errors.Join(err, s.Close())
}
