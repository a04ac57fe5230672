package target

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar/sidecartest"
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

// TestWireBytesAgreeWithTheSidecarOnRefusedRequests sends, through a real
// sidecar, requests it forwards and requests it refuses unread (a Host it
// does not allow, a body over its limit), over a network transport and
// over one that hands the request to its handler in this process. The
// bytes sent must equal the sidecar's bytes in, and the bytes read its
// bytes out: neither counts the refused requests.
func TestWireBytesAgreeWithTheSidecarOnRefusedRequests(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer upstream.Close()
	p, err := sidecar.New(sidecar.Config{Upstream: upstream.URL + "/mcp", MaxBodyBytes: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	front := httptest.NewServer(p.Handler())
	defer front.Close()
	sidecarIn := func() int64 {
		t.Helper()
		resp, err := http.Get(front.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "mcp_sidecar_io_bytes_total{") && strings.Contains(line, `direction="in"`) {
				n, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
				if err != nil {
					t.Fatal(err)
				}
				return int64(n)
			}
		}
		return 0
	}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	large := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2048) + `"}}`
	for _, c := range []struct {
		name  string
		inner http.RoundTripper
		hosts bool // the sidecar checks the Host (only of a request from the network)
	}{
		{"network", &http.Transport{}, true},
		{"in process", sidecar.HandlerTransport(p.Handler()), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			client := &http.Client{Transport: countingTransport{inner: c.inner}}
			send := func(host, body string, known bool, want int) {
				t.Helper()
				var rd io.Reader = strings.NewReader(body)
				if !known {
					rd = io.MultiReader(rd) // unknown length
				}
				req, err := http.NewRequest("POST", front.URL+"/mcp", rd)
				if err != nil {
					t.Fatal(err)
				}
				req.Host = host
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					// A body over the limit may be cut off mid-write.
					if want == http.StatusRequestEntityTooLarge {
						return
					}
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want {
					t.Fatalf("host %s, %d bytes: HTTP %d, want %d", host, len(body), resp.StatusCode, want)
				}
			}
			host := strings.TrimPrefix(front.URL, "http://")
			sent0, _ := WireBytes(front.URL)
			in0 := sidecarIn()
			for _, known := range []bool{true, false} {
				send(host, ping, known, http.StatusOK)
				if c.hosts {
					send("evil.example", ping, known, http.StatusForbidden)
				}
				send(host, large, known, http.StatusRequestEntityTooLarge)
				send(host, ping, known, http.StatusOK)
			}
			sent, _ := WireBytes(front.URL)
			if in := sidecarIn(); sent-sent0 != in-in0 || in-in0 != int64(4*len(ping)) {
				t.Errorf("harness sent %d body bytes, sidecar counted %d in; want both %d", sent-sent0, in-in0, 4*len(ping))
			}
		})
	}
}

// The harness's client for a host keeps an idle connection as long as
// SetHTTPIdleTimeout says when it is made, and DefaultHTTPIdleTimeout
// otherwise.
func TestHTTPIdleTimeoutOfNewClients(t *testing.T) {
	idleOf := func(endpoint string) time.Duration {
		t.Helper()
		return httpClientFor(endpoint).Transport.(answersTransport).inner.(countingTransport).inner.(*http.Transport).IdleConnTimeout
	}
	defer SetHTTPIdleTimeout(0)
	SetHTTPIdleTimeout(1500 * time.Millisecond)
	if got := idleOf("http://idle-a.invalid:1/mcp"); got != 1500*time.Millisecond {
		t.Errorf("after SetHTTPIdleTimeout(1.5s), a new client keeps idle connections %s", got)
	}
	SetHTTPIdleTimeout(-time.Second)
	if got := idleOf("http://idle-b.invalid:1/mcp"); got != DefaultHTTPIdleTimeout {
		t.Errorf("after SetHTTPIdleTimeout(-1s), a new client keeps idle connections %s, want the default %s", got, DefaultHTTPIdleTimeout)
	}
	if DefaultHTTPIdleTimeout <= 0 || DefaultHTTPIdleTimeout >= 5*time.Second {
		t.Errorf("DefaultHTTPIdleTimeout %s: want more than 0 and less than Node's 5 s", DefaultHTTPIdleTimeout)
	}
}

// forgetIdleConnections reaches the connections a host's client keeps idle
// through every layer of its transport: the request after it opens a new
// connection, the one before it reused the first.
func TestForgetIdleConnectionsClosesTheHostsIdleConnections(t *testing.T) {
	up := sidecartest.StartCounting(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok")
	}))
	defer up.Close()
	client := httpClientFor(up.URL)
	get := func() {
		t.Helper()
		resp, err := client.Get(up.URL)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	get()
	get()
	if n := up.Opened(); n != 1 {
		t.Fatalf("two requests in a row opened %d connections, want 1", n)
	}
	forgetIdleConnections(up.URL)
	get()
	if n := up.Opened(); n != 2 {
		t.Errorf("after forgetIdleConnections the next request opened %d connections in all, want 2", n)
	}
}
