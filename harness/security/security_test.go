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
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
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
			all := security.Run(context.Background(), tg, nil, nil)
			results := byName(all)
			for name, r := range results {
				switch {
				case r.NotApplicable:
					t.Logf("%s: not applicable: %s", name, r.Detail)
				case !r.Passed:
					t.Errorf("%s: %s", name, r.Detail)
				}
			}
			for _, name := range []string{"path-traversal", "notebook-secrets"} {
				if results[name].NotApplicable {
					t.Errorf("%s must be checked on every target the harness starts: %s", name, results[name].Detail)
				}
			}
			http := spec.Transport == "http"
			for _, name := range []string{"host-header", "origin-header", "body-limit", "pii-canaries", "label-cardinality"} {
				if results[name].NotApplicable == http {
					t.Errorf("%s: not applicable %v over %s", name, results[name].NotApplicable, spec.Transport)
				}
			}
			if a := security.Axis(all); a.Score == nil || *a.Score != 1 {
				t.Errorf("security axis %+v; want 1", a)
			}
		})
	}
}

// TestANotebookThatLeaksTheEnvironmentFails: a server whose cells see its
// environment (the broken server adds the canary to run output) fails the
// notebook check; the same server reached by URL without the canary the
// harness placed is not applicable.
func TestANotebookThatLeaksTheEnvironmentFails(t *testing.T) {
	ref, err := targetspec.Spec{Transport: "http", Storage: "memory", Direct: true}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	proxy, err := brokenserver.New(ref.HTTPBase(), brokenserver.NotebookEnvLeaks, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	for _, c := range []struct {
		canary string
		want   string
	}{{target.Canary(), "fail"}, {"", "not applicable"}} {
		tg, err := target.NewURL(context.Background(), srv.URL+"/mcp", target.URLOptions{Canary: c.canary})
		if err != nil {
			t.Fatal(err)
		}
		r := byName(security.Run(context.Background(), tg, nil, nil))["notebook-secrets"]
		got := "pass"
		if r.NotApplicable {
			got = "not applicable"
		} else if !r.Passed {
			got = "fail"
		}
		if got != c.want {
			t.Errorf("canary %q: %s (%s), want %s", c.canary, got, r.Detail, c.want)
		}
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
	results := byName(security.Run(context.Background(), tg, nil, nil))
	for _, name := range []string{"host-header", "origin-header"} {
		if results[name].Passed || results[name].NotApplicable {
			t.Errorf("%s: %+v; want a failure", name, results[name])
		}
	}
	if !results["path-traversal"].Passed {
		t.Errorf("path traversal failed through the proxy: %s", results["path-traversal"].Detail)
	}
}
