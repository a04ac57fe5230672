package conform_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/conform"
	"github.com/thoughtbox-bench/tbbench/harness/obsclient"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// observedBehindProxy is a target whose MCP endpoint and Observatory are
// both behind the broken server, and whose scenarios' own servers are too.
type observedBehindProxy struct {
	behindProxy
	obs   obsclient.Endpoint
	fault brokenserver.Fault
	tmp   string
	stop  func()
}

// putObservedBehindProxy puts inner's MCP endpoint and Observatory behind
// the broken server with fault.
func putObservedBehindProxy(inner target.Target, fault brokenserver.Fault, tmp string) (*observedBehindProxy, error) {
	e, ok := target.ObservatoryOf(inner, nil)
	if !ok {
		return nil, errors.New("the server runs no Observatory")
	}
	mcp, err := brokenserver.New(inner.HTTPBase(), fault, tmp)
	if err != nil {
		return nil, err
	}
	obs, err := brokenserver.NewObservatory(e.Base, fault)
	if err != nil {
		return nil, err
	}
	mcpSrv, obsSrv := httptest.NewServer(mcp), httptest.NewServer(obs)
	return &observedBehindProxy{behindProxy: behindProxy{Target: inner, url: mcpSrv.URL + "/mcp"},
		obs: obsclient.Endpoint{Base: obsSrv.URL, WSPath: e.WSPath}, fault: fault, tmp: tmp,
		stop: func() { mcpSrv.Close(); obsSrv.Close() }}, nil
}

func (p *observedBehindProxy) RunsObservatory() bool { return true }
func (p *observedBehindProxy) Observatory(*transcript.Recorder) (obsclient.Endpoint, bool) {
	return p.obs, true
}

// Configured starts the scenario's own server and puts it behind a broken
// server of its own; closing it stops both.
func (p *observedBehindProxy) Configured(ctx context.Context, env []string) (target.Target, error) {
	c, _ := target.As[target.Configured](p.Target)
	inner, err := c.Configured(ctx, env)
	if err != nil {
		return nil, err
	}
	own, err := putObservedBehindProxy(inner, p.fault, p.tmp)
	if err != nil {
		inner.Close()
		return nil, err
	}
	return ownObserved{own}, nil
}

// ownObserved is a scenario's own server behind its broken server.
type ownObserved struct{ *observedBehindProxy }

func (o ownObserved) Close() error {
	o.stop()
	return o.behindProxy.Target.Close()
}

// observatoryCatchers names, for each Observatory fault, a scenario that
// must be among those that catch it.
var observatoryCatchers = map[brokenserver.Fault]string{
	brokenserver.ObservatoryBranchDropped:     "a golden session is seen live on both channels",
	brokenserver.ObservatoryWrongParent:       "a golden session is seen live on both channels",
	brokenserver.ObservatoryUnknownSession200: "the HTTP API reports its health",
	brokenserver.ObservatoryIgnoresMaxConn:    "at the connection limit a new client is closed with 1008",
	brokenserver.ObservatoryErrorsSwallowed:   "gets an error, and another client is not disturbed",
	brokenserver.ObservatorySlowClientKept:    "a client that never reads is dropped",
}

// observatoryFaultTags selects the scenarios a fault's run needs: all of
// them without a fault; for a fault, those on the shared server or those on
// servers of their own, whichever holds its catcher (the slow-client
// scenario alone waits about ten seconds for the server to drop a client).
func observatoryFaultTags(fault brokenserver.Fault) string {
	switch fault {
	case brokenserver.None:
		return "@observatory"
	case brokenserver.ObservatoryIgnoresMaxConn, brokenserver.ObservatorySlowClientKept:
		return "@observatory && @own-server"
	}
	return "@observatory && ~@own-server"
}

// TestObservatoryFaultsAreCaught runs the @observatory scenarios with the
// reference server's MCP endpoint and Observatory (and those of the
// scenarios' own servers) behind the broken server: without a fault every
// scenario runs and passes; with each of brokenserver.ObservatoryFaults the
// scenario named in observatoryCatchers fails.
func TestObservatoryFaultsAreCaught(t *testing.T) {
	t.Parallel()
	ref, err := embedded.New(context.Background(), embedded.Options{Storage: "memory", Observatory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Close() }) // after the parallel subtests
	for _, fault := range append([]brokenserver.Fault{brokenserver.None}, brokenserver.ObservatoryFaults...) {
		name := string(fault)
		if fault == brokenserver.None {
			name = "no-fault"
		}
		t.Run(name, func(t *testing.T) {
			// Most of a caught fault's run is a step waiting for a frame
			// that does not come.
			t.Parallel()
			brokenserver.Proof(t, string(fault))
			tg, err := putObservedBehindProxy(ref, fault, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer tg.stop()
			rep, err := conform.Run(context.Background(), conform.Options{Target: tg, OutDir: t.TempDir(),
				Required: []string{"core", "intent"}, Tags: observatoryFaultTags(fault), StopWhen: stopWhenCaughtBy(observatoryCatchers[fault])})
			if err != nil {
				t.Fatal(err)
			}
			caught := caughtBy(rep)
			if fault == brokenserver.None {
				requirePass(t, rep)
				if _, _, na := rep.Tally(); na > 0 {
					t.Errorf("%d scenarios not applicable: every Observatory scenario must run", na)
				}
				return
			}
			want := observatoryCatchers[fault]
			if !slices.ContainsFunc(caught, func(c string) bool { return strings.Contains(c, want) }) {
				t.Fatalf("fault %s was not caught by %q; caught by:\n%s", fault, want, strings.Join(caught, "\n"))
			}
			t.Logf("caught by %d scenarios, e.g. %s", len(caught), caught[0])
		})
	}
}
