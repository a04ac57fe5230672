package conform_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/conform"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
)

// figuresSuite is the suite whose golden-session scenarios
// (features/figures.feature) must catch each of brokenserver.FigureFaults.
const figuresSuite = "figures.feature @sessions"

// figuresOwnServerCatchers names, for each figures fault that only a
// scenario with a server of its own sees, that scenario, and the tag
// expression that selects it.
var figuresOwnServerCatchers = map[brokenserver.Fault]string{
	brokenserver.StatsMiscountType: "knowledge stats count the entities and relations by type",
}

const figuresOwnServerTags = "@knowledge && @own-server && @core"

// TestFigureFaultsAreCaught runs the figures scenarios through the broken
// server, each fault in one era (the eras in turn), the proxy without a
// fault in both: each fault of brokenserver.FigureFaults (a figure
// computed with the wrong unit, a bounded list one past its bound, a count
// that takes in too much or too little) makes a required scenario fail,
// and the proxy without a fault passes. The knowledge stats fault is run
// against the scenarios' own servers behind the proxy, which must then
// fail the knowledge stats scenario, and pass it without the fault.
func TestFigureFaultsAreCaught(t *testing.T) {
	t.Parallel()
	ref, err := targetspec.Spec{Transport: "http", Storage: "memory", Direct: true}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Close() }) // after the parallel subtests
	for _, c := range alternateEras(brokenserver.FigureFaults) {
		fault, era := c.fault, c.era
		name := string(fault)
		if fault == brokenserver.None {
			name = "no-fault"
		}
		t.Run(string(era)+"/"+name, func(t *testing.T) {
			t.Parallel()
			checkFaultCaught(t, ref, fault, figuresSuite, era)
		})
	}
	own, err := embedded.New(context.Background(), embedded.Options{Storage: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { own.Close() })
	for _, c := range eraCases(append([]brokenserver.Fault{brokenserver.None}, brokenserver.FigureOwnServerFaults...)) {
		fault, era := c.fault, c.era
		name := string(fault)
		if fault == brokenserver.None {
			name = "no-fault"
		}
		t.Run(string(era)+"/own-server/"+name, func(t *testing.T) {
			t.Parallel()
			brokenserver.Proof(t, string(fault), string(era))
			rep, err := conform.Run(context.Background(), conform.Options{Target: ownServersBehindProxy{Target: own, fault: fault, tmp: t.TempDir()},
				OutDir: t.TempDir(), Required: []string{"core", "intent"}, Tags: figuresOwnServerTags, Era: era,
				StopWhen: stopWhenCaughtBy(figuresOwnServerCatchers[fault])})
			if err != nil {
				t.Fatal(err)
			}
			if fault == brokenserver.None {
				requirePass(t, rep)
				if _, _, na := rep.Tally(); na > 0 {
					t.Errorf("%d scenarios not applicable: every one with a server of its own must run", na)
				}
				return
			}
			want, ok := figuresOwnServerCatchers[fault]
			if !ok {
				t.Fatalf("fault %s has no scenario that must catch it", fault)
			}
			caught := caughtBy(rep)
			if !slices.ContainsFunc(caught, func(s string) bool { return strings.Contains(s, want) }) {
				t.Fatalf("fault %s was not caught by %q in %s; caught by:\n%s", fault, want, era, strings.Join(caught, "\n"))
			}
			t.Logf("caught by %d scenarios, e.g. %s", len(caught), caught[0])
		})
	}
}
