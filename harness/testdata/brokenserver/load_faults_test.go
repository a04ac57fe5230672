package brokenserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// reference starts the reference server in process with memory storage.
func reference(t *testing.T) target.Target {
	t.Helper()
	ref, err := embedded.New(context.Background(), embedded.Options{Storage: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Close() })
	return ref
}

// through puts a proxy with fault in front of ref and opens an MCP session
// through it with mcp-go's client.
func through(t *testing.T, ref target.Target, fault brokenserver.Fault) *target.Conn {
	t.Helper()
	ctx := context.Background()
	proxy, err := brokenserver.New(ref.HTTPBase(), fault, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	tg, err := target.NewURL(ctx, srv.URL+"/mcp", target.URLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := target.Connect(ctx, tg, transcript.Discard(), target.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// begin starts a reasoning session and enters the thought stage.
func begin(t *testing.T, c *target.Conn) {
	t.Helper()
	ctx := context.Background()
	for _, step := range []struct {
		op   string
		args any
	}{{"start_new", map[string]any{"newWork": map[string]any{"project": "load-faults"}}}, {"cipher", nil}} {
		if res, err := c.Gateway(ctx, step.op, step.args); err != nil || res.IsError {
			t.Fatalf("%s: %v %s", step.op, err, res.Text())
		}
	}
}

func thoughtText(n int) string { return fmt.Sprintf("load-fault thought number %d", n) }

func TestLoadFaultsAreApartFromAll(t *testing.T) {
	want := []brokenserver.Fault{"slow-calls", "loses-thoughts", "fails-calls", "slow-thought", "costly-thought"}
	if !slices.Equal(brokenserver.LoadFaults, want) {
		t.Fatalf("LoadFaults = %v, want %v", brokenserver.LoadFaults, want)
	}
	for _, f := range brokenserver.LoadFaults {
		if slices.Contains(brokenserver.All, f) {
			t.Errorf("load fault %s is in All, which the conformance suite must catch", f)
		}
	}
}

func TestSlowCallsDelayEveryCall(t *testing.T) {
	c := through(t, reference(t), brokenserver.SlowCalls)
	ctx := context.Background()
	calls := []struct {
		op   string
		args any
	}{
		{"start_new", map[string]any{"newWork": map[string]any{"project": "slow"}}},
		{"cipher", nil},
		{"thought", map[string]any{"thought": thoughtText(1), "thoughtNumber": 1, "totalThoughts": 2, "nextThoughtNeeded": true}},
		{"read_thoughts", map[string]any{"thoughtNumber": 1}},
	}
	for _, call := range calls {
		start := time.Now()
		res, err := c.Gateway(ctx, call.op, call.args)
		took := time.Since(start)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", call.op, err, res.Text())
		}
		if took < brokenserver.SlowCallDelay {
			t.Errorf("%s took %v, want at least %v", call.op, took, brokenserver.SlowCallDelay)
		}
	}
}

func TestLosesThoughtsAcknowledgesWithoutKeeping(t *testing.T) {
	c := through(t, reference(t), brokenserver.LosesThoughts)
	ctx := context.Background()
	begin(t, c)
	const n = 2 * brokenserver.LoseEvery
	var session string
	for i := 1; i <= n; i++ {
		res, err := c.Gateway(ctx, "thought", map[string]any{"thought": thoughtText(i), "thoughtNumber": i,
			"totalThoughts": n + 1, "nextThoughtNeeded": true})
		if err != nil || res.IsError {
			t.Fatalf("thought %d: %v %s", i, err, res.Text())
		}
		ans, err := res.JSON()
		if err != nil {
			t.Fatalf("thought %d: %v", i, err)
		}
		if ans["thoughtNumber"] != float64(i) {
			t.Errorf("thought %d acknowledged as number %v", i, ans["thoughtNumber"])
		}
		if i == 1 {
			session, _ = ans["sessionId"].(string)
		}
		if ans["sessionId"] != session || session == "" {
			t.Errorf("thought %d acknowledged in session %v, want %q", i, ans["sessionId"], session)
		}
	}
	for i := 1; i <= n; i++ {
		res, err := c.Gateway(ctx, "read_thoughts", map[string]any{"sessionId": session, "thoughtNumber": i})
		if err != nil {
			t.Fatalf("read thought %d: %v", i, err)
		}
		lost := i%brokenserver.LoseEvery == 0
		kept := !res.IsError && strings.Contains(res.Text(), thoughtText(i))
		if lost == kept {
			t.Errorf("thought %d: lost=%v but read back %v: %s", i, lost, kept, res.Text())
		}
	}
}

func TestFailsCallsInjectsErrorsAnd503(t *testing.T) {
	c := through(t, reference(t), brokenserver.FailsCalls)
	ctx := context.Background()
	for i := 1; i <= 2*brokenserver.FailEvery; i++ {
		_, err := c.CallTool(ctx, "thoughtbox_gateway", map[string]any{"operation": "cipher"})
		var rpc *target.RPCError
		switch {
		case i%brokenserver.FailEvery == 0:
			if !errors.As(err, &rpc) || rpc.Code != brokenserver.FailCode || rpc.Message != brokenserver.FailMessage {
				t.Errorf("call %d: got %v, want JSON-RPC error %d %q", i, err, brokenserver.FailCode, brokenserver.FailMessage)
			}
		case i%brokenserver.FailEvery == brokenserver.FailEvery/2:
			if err == nil || errors.As(err, &rpc) || !strings.Contains(err.Error(), "503") {
				t.Errorf("call %d: got %v, want an error naming status 503", i, err)
			}
		default:
			if err != nil {
				t.Errorf("call %d: %v, want it to pass", i, err)
			}
		}
	}
}

// TestThoughtFaultsForwardTheReferenceAnswer sends a session's calls
// through SlowThought and CostlyThought proxies to the reference server,
// with a recorder between the proxy and the server: every call reaches the
// server, every answer comes back byte for byte as the server gave it, and
// with SlowThought a thought call reaches the server no sooner than
// SlowThoughtDelay after it was sent.
func TestThoughtFaultsForwardTheReferenceAnswer(t *testing.T) {
	ref := reference(t)
	for _, fault := range []brokenserver.Fault{brokenserver.SlowThought, brokenserver.CostlyThought} {
		t.Run(string(fault), func(t *testing.T) {
			rec := record(t, ref.HTTPBase())
			proxy, err := brokenserver.New(rec.url, fault, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(proxy)
			defer srv.Close()
			s := &rawSession{t: t, url: srv.URL + "/mcp"}
			s.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},` +
				`"clientInfo":{"name":"thought-faults","version":"0"}}}`)
			s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			calls := []struct {
				op   string
				args any
			}{
				{"start_new", map[string]any{"newWork": map[string]any{"project": "thought-faults"}}},
				{"cipher", nil},
				{"thought", map[string]any{"thought": thoughtText(1), "thoughtNumber": 1, "totalThoughts": 2, "nextThoughtNeeded": true}},
				{"read_thoughts", map[string]any{"thoughtNumber": 1}},
				{"thought", map[string]any{"thought": thoughtText(2), "thoughtNumber": 2, "totalThoughts": 2, "nextThoughtNeeded": true}},
			}
			for i, c := range calls {
				body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
					"params": map[string]any{"name": "thoughtbox_gateway", "arguments": map[string]any{"operation": c.op, "args": c.args}}})
				sent := time.Now()
				answer := s.post(string(body))
				arrived, upstream := rec.last()
				if !bytes.Equal(answer, upstream) {
					t.Errorf("%s: answer %q, the server gave %q", c.op, answer, upstream)
				}
				if bytes.Contains(answer, []byte(`"isError":true`)) || !bytes.Contains(answer, []byte(`"result"`)) {
					t.Errorf("%s failed: %s", c.op, answer)
				}
				if waited := arrived.Sub(sent); fault == brokenserver.SlowThought && c.op == "thought" && waited < brokenserver.SlowThoughtDelay {
					t.Errorf("thought reached the server %v after it was sent, want at least %v", waited, brokenserver.SlowThoughtDelay)
				}
			}
			if n := rec.count(); n != len(calls)+2 {
				t.Errorf("%d requests reached the server, want %d", n, len(calls)+2)
			}
		})
	}
}

// recorder is a reverse proxy in front of the reference server that
// records when each request arrives and the body of each answer.
type recorder struct {
	url string // the MCP endpoint

	mu       sync.Mutex
	arrivals []time.Time
	answers  [][]byte
}

func record(t *testing.T, upstream string) *recorder {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host})
			r.Out.URL.Path, r.Out.Host = r.In.URL.Path, r.In.Host
		},
		ModifyResponse: func(resp *http.Response) error {
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(body))
			rec.mu.Lock()
			rec.answers = append(rec.answers, body)
			rec.mu.Unlock()
			return err
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.arrivals = append(rec.arrivals, time.Now())
		rec.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	rec.url = srv.URL + u.Path
	return rec
}

// last returns when the last request arrived and the body of the last answer.
func (r *recorder) last() (time.Time, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.arrivals) == 0 || len(r.answers) == 0 {
		return time.Time{}, nil
	}
	return r.arrivals[len(r.arrivals)-1], r.answers[len(r.answers)-1]
}

// count returns how many requests arrived.
func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.arrivals)
}

// rawSession is an MCP session over plain HTTP requests, so that a test sees
// the answers' bytes.
type rawSession struct {
	t   *testing.T
	url string
	id  string // Mcp-Session-Id
}

// post sends one JSON-RPC message and returns the answer's body.
func (s *rawSession) post(body string) []byte {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode/100 != 2 {
		s.t.Fatalf("%s: status %d, %v %s", body, resp.StatusCode, err, answer)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		s.id = id
	}
	return answer
}
