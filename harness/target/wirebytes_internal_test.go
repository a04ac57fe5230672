package target

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// writeCountingConn counts the writes made on a connection.
type writeCountingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c writeCountingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// TestACountedRequestGoesInOneWrite checks that counting a request's body
// does not split it from its headers: a body of known length, as mcp-go's
// transport sends it, goes in one write with them, and is counted in full
// once written, answered or not; a body of unknown length is counted as it
// is read.
func TestACountedRequestGoesInOneWrite(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/hang-up" { // read, and not answered
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	var writes atomic.Int64
	inner := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		return writeCountingConn{Conn: c, writes: &writes}, err
	}}
	defer inner.CloseIdleConnections()
	c := &http.Client{Transport: countingTransport{inner: inner}}
	host := strings.TrimPrefix(srv.URL, "http://")
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"thoughtbox_gateway"}}`

	post := func(rd io.Reader, path string) {
		t.Helper()
		before := writes.Load()
		s0, _ := WireBytes(srv.URL)
		req, err := http.NewRequest("POST", srv.URL+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req)
		if path == "/hang-up" {
			if err == nil {
				t.Fatal("a request the server hung up on was answered")
			}
		} else if err != nil {
			t.Fatal(err)
		} else {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if s1, _ := WireBytes(srv.URL); s1-s0 != int64(len(body)) {
			t.Errorf("%s: counted %d bytes sent, want %d", host, s1-s0, len(body))
		}
		if _, known := rd.(*bytes.Reader); known {
			if n := writes.Load() - before; n != 1 {
				t.Errorf("a request of known length took %d writes, want 1", n)
			}
		}
	}
	post(bytes.NewReader([]byte(body)), "/mcp")
	post(io.MultiReader(strings.NewReader(body)), "/mcp") // unknown length: chunked
	post(bytes.NewReader([]byte(body)), "/mcp")           // again, on the kept connection
	post(bytes.NewReader([]byte(body)), "/hang-up")       // sent in full, never answered
}
