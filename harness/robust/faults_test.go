package robust_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/robust"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
)

// faulty puts a proxy that misbehaves in front of the reference server and
// runs some of the catalogue through it.
func faulty(t *testing.T, names []string, o robust.Options, fault func(p *httputil.ReverseProxy, upstream string) http.Handler) []robust.Result {
	t.Helper()
	ref, err := targetspec.Spec{Transport: "http", Storage: "memory", Direct: true}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	u, _ := url.Parse(ref.HTTPBase())
	srv := httptest.NewServer(fault(httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host}), ref.HTTPBase()))
	defer srv.Close()
	tg, err := target.NewURL(context.Background(), srv.URL+"/mcp", target.URLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	var inputs []robust.Input
	for _, in := range robust.Catalogue() {
		for _, n := range names {
			if in.Name == n {
				inputs = append(inputs, in)
			}
		}
	}
	if len(inputs) != len(names) {
		t.Fatalf("%d of the inputs %v are in the catalogue", len(inputs), names)
	}
	results, err := robust.Run(context.Background(), tg, robust.Options{Inputs: inputs, NoFaults: o.NoFaults, CritiqueTimeout: o.CritiqueTimeout, Era: o.Era,
		Timeout: answerBound})
	if err != nil {
		t.Fatal(err)
	}
	return results
}

func failures(results []robust.Result) map[string]string {
	out := map[string]string{}
	for _, r := range results {
		if !r.Passed && !r.NotApplicable {
			out[r.Name] = r.Detail
		}
	}
	return out
}

// TestASwallowedErrorFails: a server that answers a bad input with a normal
// result fails that input.
func TestASwallowedErrorFails(t *testing.T) {
	brokenserver.Proof(t, "robust swallowed-error")
	names := []string{"thought/thoughtNumber-zero", "session/get-sessionId-unknown", "limit/body-at-4MiB"}
	results := faulty(t, names, robust.Options{NoFaults: true}, func(p *httputil.ReverseProxy, _ string) http.Handler {
		p.ModifyResponse = func(r *http.Response) error {
			b, _ := io.ReadAll(r.Body)
			b = bytes.ReplaceAll(b, []byte(`"isError":true`), []byte(`"isError":false`))
			r.Body = io.NopCloser(bytes.NewReader(b))
			r.ContentLength = int64(len(b))
			r.Header.Del("Content-Length")
			return nil
		}
		return p
	})
	f := failures(results)
	for _, n := range names[:2] {
		if !strings.Contains(f[n], "must be refused") {
			t.Errorf("%s: %q; want a failure for an answer that is not an error", n, f[n])
		}
	}
	if d, ok := f["limit/body-at-4MiB"]; ok {
		t.Errorf("the body at the limit is answered normally, yet it failed: %s", d)
	}
}

// TestASideEffectFails: a server that refuses an input but changes its
// state anyway fails it, as read back through MCP.
func TestASideEffectFails(t *testing.T) {
	brokenserver.Proof(t, "robust side-effect")
	names := []string{"thought/totalThoughts-zero", "thought/branchId-slash"}
	results := faulty(t, names, robust.Options{NoFaults: true}, func(p *httputil.ReverseProxy, upstream string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"branchId":"a/b"`)) {
				// Record a valid thought on the same session first.
				sneak := `{"jsonrpc":"2.0","id":"sneak","method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"thought","args":{"thought":"sneaked in","nextThoughtNeeded":true}}}}`
				req, _ := http.NewRequest("POST", upstream, strings.NewReader(sneak))
				req.Header = r.Header.Clone()
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}
			p.ServeHTTP(w, r)
		})
	})
	f := failures(results)
	if !strings.Contains(f["thought/branchId-slash"], "changed something") {
		t.Errorf("the input with a side effect: %q; want it failed for the change", f["thought/branchId-slash"])
	}
	if d, ok := f["thought/totalThoughts-zero"]; ok {
		t.Errorf("the input without a side effect failed: %s", d)
	}
}

// TestAServerThatStopsAnsweringFails: after a server stops answering, the
// input that stopped it fails and no later one is counted as passed.
func TestAServerThatStopsAnsweringFails(t *testing.T) {
	brokenserver.Proof(t, "robust stops-answering")
	names := []string{"jsonrpc/not-json-words", "thought/thoughtNumber-zero"}
	var dead atomic.Bool
	results := faulty(t, names, robust.Options{NoFaults: true}, func(p *httputil.ReverseProxy, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if string(body) == "not json" {
				dead.Store(true)
			}
			if dead.Load() && !bytes.Contains(body, []byte(`"not json"`)) && string(body) != "not json" {
				http.Error(w, "", http.StatusBadGateway)
				return
			}
			p.ServeHTTP(w, r)
		})
	})
	f := failures(results)
	if !strings.Contains(f["jsonrpc/not-json-words"], "stopped answering") {
		t.Errorf("the input that stopped the server: %q", f["jsonrpc/not-json-words"])
	}
	if !strings.Contains(f["thought/thoughtNumber-zero"], "not sent") {
		t.Errorf("the input after it: %q; want it failed as not sent", f["thought/thoughtNumber-zero"])
	}
}

// TestASlowCritiqueFails: a server that holds a thought far beyond its
// critique timeout when the client does not answer sampling fails the
// sampling faults; the others still pass.
func TestASlowCritiqueFails(t *testing.T) {
	brokenserver.Proof(t, "robust slow-critique")
	results := faulty(t, []string{"thought/thoughtNumber-zero"}, robust.Options{CritiqueTimeout: time.Nanosecond}, func(p *httputil.ReverseProxy, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"critique":true`)) {
				time.Sleep(3500 * time.Millisecond)
			}
			p.ServeHTTP(w, r)
		})
	})
	f := failures(results)
	for _, n := range []string{"fault/sampling-refused", "fault/sampling-never-answered"} {
		if !strings.Contains(f[n], "critique timeout") {
			t.Errorf("%s: %q; want a failure for the delay", n, f[n])
		}
	}
	if len(f) != 2 {
		t.Errorf("failures %v; want only the two sampling faults", f)
	}
}
