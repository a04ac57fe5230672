package conform_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/conform"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
)

// ownServerFaults is a fault proof for scenarios that start servers of
// their own (@own-server): the scenarios selected by tags run with those
// servers behind the broken server, once without a fault and once per
// fault.
type ownServerFaults struct {
	// tags selects the scenarios; what names them in messages.
	tags, what string
	// minPassed is how many scenarios must pass without a fault (and with
	// each fault in passing), none of them not applicable.
	minPassed int
	// catchers names, for each fault, a scenario that must be among those
	// that fail with it.
	catchers map[brokenserver.Fault]string
	// passing are faults every scenario must pass with (reworded errors).
	passing []brokenserver.Fault
}

// run runs the proof, the faults in parallel subtests: most of each run is
// waiting for the scenarios' servers to start.
func (p ownServerFaults) run(t *testing.T) {
	ref, err := embedded.New(context.Background(), embedded.Options{Storage: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Close() }) // after the parallel subtests
	faults := append([]brokenserver.Fault{brokenserver.None}, p.passing...)
	for f := range p.catchers {
		faults = append(faults, f)
	}
	slices.Sort(faults)
	for _, fault := range faults {
		name := string(fault)
		if fault == brokenserver.None {
			name = "no-fault"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			brokenserver.Proof(t, string(fault))
			want, ok := p.catchers[fault]
			rep, err := conform.Run(context.Background(), conform.Options{Target: ownServersBehindProxy{Target: ref, fault: fault, tmp: t.TempDir()},
				OutDir: t.TempDir(), Required: []string{"core", "intent"}, Tags: p.tags, StopWhen: stopWhenCaughtBy(want)})
			if err != nil {
				t.Fatal(err)
			}
			caught := caughtBy(rep)
			if !ok {
				requirePass(t, rep)
				if passed, _, na := rep.Tally(); na > 0 || passed < p.minPassed {
					t.Errorf("%d passed, %d not applicable: every %s scenario with a server of its own must run", passed, na, p.what)
				}
				return
			}
			if !slices.ContainsFunc(caught, func(c string) bool { return strings.Contains(c, want) }) {
				t.Fatalf("fault %s was not caught by %q; caught by:\n%s", fault, want, strings.Join(caught, "\n"))
			}
			t.Logf("caught by %d scenarios, e.g. %s", len(caught), caught[0])
		})
	}
}
