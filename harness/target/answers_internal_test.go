package target

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestIsAnswer(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":1,"params":{"text":"` + strings.Repeat("x", 600) + `"},"method":"tools/call"}`
	for _, c := range []struct {
		body string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"model":"m"}}`, true},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":-1,"message":"no"}}`, true},
		{` { "jsonrpc" : "2.0" , "id" : {"odd":"}"} , "result" : {} }`, true},
		{`{"jsonrpc":"2.0","id":"x,\"result\"","result":null}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"result":1}}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, false},
		{`{"method":"ping","result":1}`, false},
		{long, false},
		{`{"jsonrpc":"2.0","id":12`, false},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]`, false},
		{`"result"`, false},
		{``, false},
	} {
		if got := isAnswer([]byte(c.body)); got != c.want {
			t.Errorf("isAnswer(%.60q) = %v, want %v", c.body, got, c.want)
		}
	}
}

// seenContext is an inner transport that keeps the context of the request
// it carried and its body, and answers 202.
type seenContext struct {
	ctx  context.Context
	body string
}

func (s *seenContext) RoundTrip(req *http.Request) (*http.Response, error) {
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	s.ctx, s.body = req.Context(), string(b)
	return &http.Response{StatusCode: http.StatusAccepted, Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
}

// An answer to a server's request keeps its context when the caller's is
// cancelled, until its response body is closed; a request's context is
// the caller's. Both bodies arrive whole.
func TestAnAnswerOutlivesTheCallersContext(t *testing.T) {
	for _, c := range []struct {
		name, body string
		detached   bool
	}{
		{"answer", `{"jsonrpc":"2.0","id":1,"result":{"role":"assistant"}}`, true},
		{"request", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			inner := &seenContext{}
			ctx, cancel := context.WithCancel(context.Background())
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://host.invalid/mcp", strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := answersTransport{inner}.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			if inner.body != c.body {
				t.Errorf("the inner transport got %q, want %q", inner.body, c.body)
			}
			cancel()
			if got := inner.ctx.Err() == nil; got != c.detached {
				t.Errorf("after the caller's cancel the request's context is live: %v, want %v", got, c.detached)
			}
			resp.Body.Close()
			if inner.ctx.Err() == nil {
				t.Error("the request's context is live after its response body was closed")
			}
		})
	}
}

// Over a real connection, an answer whose caller gives up while the server
// holds it still reaches the server and gets its 202, and the connection
// then carries the next request.
func TestAnAnswerReachesTheServerAfterItsCallerGaveUp(t *testing.T) {
	got := make(chan string, 1)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), `"result"`) {
			got <- string(b)
			<-release
			w.WriteHeader(http.StatusAccepted)
			return
		}
		io.WriteString(w, `{"jsonrpc":"2.0","id":2,"result":{}}`)
	}))
	defer srv.Close()
	client := &http.Client{Transport: answersTransport{&http.Transport{MaxConnsPerHost: 1}}}
	defer client.CloseIdleConnections()

	ctx, cancel := context.WithCancel(context.Background())
	answered := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"result":{}}`))
		resp, err := client.Do(req)
		if err == nil {
			if resp.StatusCode != http.StatusAccepted {
				err = &http.ProtocolError{ErrorString: "status " + resp.Status}
			}
			resp.Body.Close()
		}
		answered <- err
	}()
	select {
	case <-got:
	case <-time.After(time.Minute):
		t.Fatal("the answer never reached the server")
	}
	cancel()
	close(release)
	if err := <-answered; err != nil {
		t.Fatalf("the answer failed once its caller gave up: %v", err)
	}
	resp, err := client.Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	if err != nil {
		t.Fatalf("the request after the answer: %v", err)
	}
	resp.Body.Close()
}
