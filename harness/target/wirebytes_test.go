package target_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// TestWireBytesCountBodies checks that the bytes of a raw request's body
// and of its answer's body are counted for the server's host, headers not.
func TestWireBytesCountBodies(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_, _ = io.WriteString(w, strings.Repeat("a", 3*len(b)))
	}))
	defer srv.Close()
	sent, received := target.WireBytes(srv.URL)
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	res, err := target.RawHTTP(context.Background(), transcript.Discard(), srv.URL+"/mcp", "POST", "", map[string]string{"X-Padding": strings.Repeat("h", 500)}, body)
	if err != nil {
		t.Fatal(err)
	}
	s, r := target.WireBytes(srv.URL + "/other")
	if s-sent != int64(len(body)) || r-received != int64(len(res.Body)) || len(res.Body) != 3*len(body) {
		t.Errorf("counted %d sent and %d received; want %d and %d", s-sent, r-received, len(body), 3*len(body))
	}
}

// TestWireBytesLeaveOutTheSidecarsOwnAnswers checks that an answer a
// sidecar gave itself (outcome.ProxyAnswerHeader) is not counted as
// received: those bytes are not the server's, and the sidecar does not
// count them either.
func TestWireBytesLeaveOutTheSidecarsOwnAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/own" {
			w.Header().Set(outcome.ProxyAnswerHeader, "upstream unreachable")
			w.WriteHeader(http.StatusBadGateway)
		}
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}`)
	}))
	defer srv.Close()
	_, before := target.WireBytes(srv.URL)
	own, err := target.RawHTTP(context.Background(), transcript.Discard(), srv.URL+"/own", "POST", "", nil, "{}")
	if err != nil || len(own.Body) == 0 {
		t.Fatalf("%+v %v", own, err)
	}
	if _, after := target.WireBytes(srv.URL); after != before {
		t.Errorf("the sidecar's own answer counted %d bytes as received", after-before)
	}
	server, err := target.RawHTTP(context.Background(), transcript.Discard(), srv.URL+"/mcp", "POST", "", nil, "{}")
	if err != nil {
		t.Fatal(err)
	}
	if _, after := target.WireBytes(srv.URL); after-before != int64(len(server.Body)) {
		t.Errorf("the server's answer counted %d bytes, want %d", after-before, len(server.Body))
	}
}
