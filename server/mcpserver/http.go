package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/readall"
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

// Handler returns the HTTP handler: /mcp (Streamable HTTP, both eras),
// /health and /info. Every request's Host and Origin headers are checked
// first.
func (s *Server) Handler() http.Handler {
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

// isJSONType reports whether a Content-Type is application/json.
func isJSONType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// readBody reads a POST body, at most one byte over the limit, within the
// read timeout: a client sending it slowly cannot hold the connection. When
// the read fails the connection is closed after the answer.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.cfg.ReadTimeout))
	var buf []byte
	if n := r.ContentLength; n >= 0 && n < maxPresized {
		// The declared length, and a byte for the end: io.ReadAll would
		// grow its buffer from 512 bytes, copying the body each time. A
		// larger declared length grows as the body arrives, as before: a
		// client that declares 4 MiB and sends nothing gets no 4 MiB.
		buf = make([]byte, 0, n+1)
	}
	body, err := readall.Append(buf, io.LimitReader(r.Body, s.cfg.MaxBodyBytes+1))
	if err != nil {
		w.Header().Set("Connection", "close")
		return nil, err
	}
	_ = rc.SetReadDeadline(time.Time{})
	return body, nil
}

// maxPresized bounds the buffer readBody sizes from a request's declared
// length before any of the body has arrived.
const maxPresized = 64 << 10

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
