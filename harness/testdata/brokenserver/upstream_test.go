package brokenserver

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// A POST on a connection kept idle from before, which the server drops
// without an answer (as a server killed and started again on the same port
// left it), is sent once more on a new connection, body and all; Go's own
// transport gives up on it.
func TestStaleRetrySendsAPOSTAgainOnANewConnection(t *testing.T) {
	var mu sync.Mutex
	first := "" // the first connection's client address
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		stale := first == r.RemoteAddr
		if first == "" {
			first = r.RemoteAddr
		}
		bodies = append(bodies, string(b))
		mu.Unlock()
		if stale {
			c, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				c.Close()
			}
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	post := func(rt http.RoundTripper, body string) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader([]byte(body)))
		return rt.RoundTrip(req)
	}
	for _, c := range []struct {
		name  string
		rt    http.RoundTripper
		retry bool
	}{{"plain", http.DefaultTransport.(*http.Transport).Clone(), false}, {"staleRetry", upstreamTransport(), true}} {
		mu.Lock()
		first, bodies = "", nil
		mu.Unlock()
		resp, err := post(c.rt, "one")
		if err != nil {
			t.Fatalf("%s: first request: %v", c.name, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close() // the connection goes back to the pool
		resp, err = post(c.rt, "two")
		if !c.retry {
			if err == nil {
				t.Fatalf("plain transport: the dropped request got %s: the test no longer drops it", resp.Status)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: the request on the stale connection was not sent again: %v", c.name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		mu.Lock()
		got := append([]string(nil), bodies...)
		mu.Unlock()
		if string(b) != "ok" || len(got) != 3 || got[2] != "two" {
			t.Fatalf("%s: answer %q, bodies the server read %q", c.name, b, got)
		}
	}
}
