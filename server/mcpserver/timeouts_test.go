package mcpserver_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// TestSlowBodyIsCutOff sends a body one byte every 50 ms for up to 20 s:
// the read timeout (500 ms) ends it while the bytes are still coming,
// instead of holding the connection for as long as the client likes. (A
// timeout that only counted the time between two bytes would wait for the
// trickle to stop.)
func TestSlowBodyIsCutOff(t *testing.T) {
	cfg := testConfig(t, "memory")
	cfg.ReadTimeout = 500 * time.Millisecond
	_, url := newHTTPServer(t, cfg)
	conn, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(url, mcpserver.MCPPath), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
	const trickle = 20 * time.Second
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for end := time.Now().Add(trickle); time.Now().Before(end); {
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(trickle + 5*time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	close(stop)
	if err != nil {
		t.Fatalf("no answer to a slow body: %v", err)
	}
	resp.Body.Close()
	if took := time.Since(start); resp.StatusCode != http.StatusRequestTimeout || took >= trickle {
		t.Errorf("slow body: status %d after %v, want 408 while the body was still coming", resp.StatusCode, took)
	}
	conn.Close()
	<-done
}

// TestIdleConnectionIsClosed leaves a keep-alive connection idle past the
// idle timeout: the server closes it.
func TestIdleConnectionIsClosed(t *testing.T) {
	cfg := testConfig(t, "memory")
	cfg.Port = 0
	cfg.IdleTimeout = 300 * time.Millisecond
	srv, err := mcpserver.New(cfg, mcpserver.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe(ctx, func(a net.Addr) { addrc <- a }) }()
	defer func() { cancel(); <-errc }()
	conn, err := net.Dial("tcp", (<-addrc).String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	fmt.Fprintf(conn, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	start := time.Now()
	var timeout net.Error
	if _, err := br.ReadByte(); err == nil || errors.As(err, &timeout) && timeout.Timeout() {
		t.Errorf("idle keep-alive connection still open after %v (%v)", time.Since(start), err)
	}
}

// TestIdleSessionExpires leaves an MCP session idle past the session
// timeout: it ends, and its id then gets 404.
func TestIdleSessionExpires(t *testing.T) {
	cfg := testConfig(t, "fs")
	cfg.SessionTimeout = 500 * time.Millisecond
	srv, url := newHTTPServer(t, cfg)
	m := dialHTTP(t, url)
	m.ready()
	sid := m.gateway("thought", map[string]any{"thought": "one", "nextThoughtNeeded": true}).JSON(t)["sessionId"].(string)
	mcpID := m.c.GetSessionId()
	time.Sleep(2 * time.Second)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", mcpID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a request of an expired MCP session got %d, want 404", resp.StatusCode)
	}
	// The expired connection's reasoning session was released: another
	// connection can open it.
	m2 := dialHTTP(t, url)
	if r := m2.gateway("load_context", map[string]any{"sessionId": sid}); r.IsError {
		t.Errorf("load_context after the expiry: %s", r.Text)
	}
	_ = srv
}
