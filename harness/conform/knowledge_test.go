package conform_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/target"
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
	t.Parallel()
	ownServerFaults{tags: "@knowledge && @own-server", what: "knowledge", minPassed: 5, catchers: knowledgeCatchers}.run(t)
}
