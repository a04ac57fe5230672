package security_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/security"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
)

func TestMain(m *testing.M) {
	embedded.ServeIfRequested()
	os.Exit(m.Run())
}

func byName(results []security.Result) map[string]security.Result {
	out := map[string]security.Result{}
	for _, r := range results {
		out[r.Name] = r
	}
	return out
}

// TestReferencePassesEveryApplicableCheck runs the checks against the
// reference server over HTTP (every HTTP check applies) and over stdio
// (they do not; path traversal does).
func TestReferencePassesEveryApplicableCheck(t *testing.T) {
	for _, spec := range []targetspec.Spec{{Transport: "http", Storage: "fs"}, {Transport: "stdio", Storage: "fs"}} {
		t.Run(spec.Transport, func(t *testing.T) {
			tg, err := spec.Open(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			results := byName(security.Run(context.Background(), tg, nil))
			for name, r := range results {
				switch {
				case r.NotApplicable:
					t.Logf("%s: not applicable: %s", name, r.Detail)
				case !r.Passed:
					t.Errorf("%s: %s", name, r.Detail)
				}
			}
			if results["path-traversal"].NotApplicable {
				t.Error("path traversal must be checked on every target")
			}
			http := spec.Transport == "http"
			for _, name := range []string{"host-header", "origin-header", "body-limit", "pii-canaries", "label-cardinality"} {
				if results[name].NotApplicable == http {
					t.Errorf("%s: not applicable %v over %s", name, results[name].NotApplicable, spec.Transport)
				}
			}
			if a := security.Axis(security.Run(context.Background(), tg, nil)); a.Score == nil || *a.Score != 1 {
				t.Errorf("security axis %+v; want 1", a)
			}
		})
	}
}

// TestAProxyThatRewritesHostFails: a server that takes any Host header (a
// naive proxy in front of it rewrites Host to the server's own) fails the
// DNS-rebinding check.
func TestAProxyThatRewritesHostFails(t *testing.T) {
	ref, err := targetspec.Spec{Transport: "http", Storage: "memory", Direct: true}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	u, _ := url.Parse(ref.HTTPBase())
	p := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	inner := p.Director
	p.Director = func(r *http.Request) {
		inner(r)
		r.Host = u.Host
		r.Header.Del("Origin")
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	tg, err := target.NewURL(context.Background(), srv.URL+u.Path, target.URLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	results := byName(security.Run(context.Background(), tg, nil))
	for _, name := range []string{"host-header", "origin-header"} {
		if results[name].Passed || results[name].NotApplicable {
			t.Errorf("%s: %+v; want a failure", name, results[name])
		}
	}
	if !results["path-traversal"].Passed {
		t.Errorf("path traversal failed through the proxy: %s", results["path-traversal"].Detail)
	}
}
