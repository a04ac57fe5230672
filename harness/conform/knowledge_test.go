package conform_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/conform"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
)

// ownServersBehindProxy is a target whose scenarios' own servers
// (target.Configured) are each put behind a broken server with fault.
type ownServersBehindProxy struct {
	target.Target
	fault brokenserver.Fault
	tmp   string
}

// ownBehindProxy is one own server behind its broken server; closing it
// stops both.
type ownBehindProxy struct {
	behindProxy
	srv  *httptest.Server
	stop func() // ends the fault's relay of the server's files, if any
}

func (o ownBehindProxy) Close() error {
	o.srv.Close()
	err := o.behindProxy.Target.Close()
	o.stop()
	return err
}

func (p ownServersBehindProxy) Configured(ctx context.Context, env []string) (target.Target, error) {
	c, _ := target.As[target.Configured](p.Target)
	env, stop := brokenserver.ServerEnv(p.fault, env, p.tmp)
	inner, err := c.Configured(ctx, env)
	if err != nil {
		stop()
		return nil, err
	}
	proxy, err := brokenserver.New(inner.HTTPBase(), p.fault, p.tmp)
	if err != nil {
		inner.Close()
		stop()
		return nil, err
	}
	srv := httptest.NewServer(proxy)
	return ownBehindProxy{behindProxy: behindProxy{Target: inner, url: srv.URL + "/mcp"}, srv: srv, stop: stop}, nil
}

// knowledgeCatchers names, for each knowledge fault, a scenario that must
// be among those that catch it.
var knowledgeCatchers = map[brokenserver.Fault]string{
	brokenserver.DuplicateEntity: "creating an entity twice returns the existing entity",
}

// TestKnowledgeFaultsAreCaught runs the knowledge scenarios with their own
// servers behind the broken server: without a fault every one of them runs
// and passes; with each of brokenserver.KnowledgeFaults the scenario named
// in knowledgeCatchers fails. Against a URL these scenarios are not
// applicable.
func TestKnowledgeFaultsAreCaught(t *testing.T) {
	ref, err := embedded.New(context.Background(), embedded.Options{Storage: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	for _, fault := range append([]brokenserver.Fault{brokenserver.None}, brokenserver.KnowledgeFaults...) {
		name := string(fault)
		if fault == brokenserver.None {
			name = "no-fault"
		}
		t.Run(name, func(t *testing.T) {
			rep, err := conform.Run(context.Background(), conform.Options{Target: ownServersBehindProxy{Target: ref, fault: fault, tmp: t.TempDir()},
				OutDir: t.TempDir(), Required: []string{"core", "intent"}, Tags: "@knowledge && @own-server"})
			if err != nil {
				t.Fatal(err)
			}
			var caught []string
			for _, s := range rep.Scenarios {
				if s.Status == conform.Failed && s.Level != "quirk" {
					caught = append(caught, "@"+s.Level+" "+s.Name+": "+firstLine(s.Failure))
				}
			}
			if fault == brokenserver.None {
				requirePass(t, rep)
				if passed, _, na := rep.Tally(); na > 0 || passed < 5 {
					t.Errorf("%d passed, %d not applicable: every knowledge scenario with a server of its own must run", passed, na)
				}
				return
			}
			want := knowledgeCatchers[fault]
			if !slices.ContainsFunc(caught, func(c string) bool { return strings.Contains(c, want) }) {
				t.Fatalf("fault %s was not caught by %q; caught by:\n%s", fault, want, strings.Join(caught, "\n"))
			}
			t.Logf("caught by %d scenarios, e.g. %s", len(caught), caught[0])
		})
	}
}
