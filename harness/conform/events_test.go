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

// eventCatchers names, for each event stream and observability fault, a
// scenario that must be among those that catch it.
var eventCatchers = map[brokenserver.Fault]string{
	brokenserver.EventsRevisionUnreported:     "a golden session emits every event type of the data model",
	brokenserver.EventsStageNames:             "a golden session emits every event type of the data model",
	brokenserver.ObservabilityErrorsAsSuccess: "with Prometheus unreachable, metrics is an error, not a hang",
	brokenserver.HealthAlwaysHealthy:          "with nothing reachable, health answers and says why each service is not healthy",
}

// TestEventFaultsAreCaught runs the @events and @observability scenarios
// that start a server of their own with those servers behind the broken
// server: without a fault every one runs and passes; with each of
// brokenserver.EventFaults the scenario named in eventCatchers fails; and
// with every error message reworded (brokenserver.Reworded) they all pass.
func TestEventFaultsAreCaught(t *testing.T) {
	ref, err := embedded.New(context.Background(), embedded.Options{Storage: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	for _, fault := range append([]brokenserver.Fault{brokenserver.None, brokenserver.Reworded}, brokenserver.EventFaults...) {
		name := string(fault)
		if fault == brokenserver.None {
			name = "no-fault"
		}
		t.Run(name, func(t *testing.T) {
			rep, err := conform.Run(context.Background(), conform.Options{Target: ownServersBehindProxy{Target: ref, fault: fault, tmp: t.TempDir()},
				OutDir: t.TempDir(), Required: []string{"core", "intent"}, Tags: "@events,@observability && @own-server"})
			if err != nil {
				t.Fatal(err)
			}
			var caught []string
			for _, s := range rep.Scenarios {
				if s.Status == conform.Failed && s.Level != "quirk" {
					caught = append(caught, "@"+s.Level+" "+s.Name+": "+firstLine(s.Failure))
				}
			}
			if fault == brokenserver.None || fault == brokenserver.Reworded {
				requirePass(t, rep)
				if passed, _, na := rep.Tally(); na > 0 || passed < 9 {
					t.Errorf("%d passed, %d not applicable: every event and observability scenario with a server of its own must run", passed, na)
				}
				return
			}
			want := eventCatchers[fault]
			if !slices.ContainsFunc(caught, func(c string) bool { return strings.Contains(c, want) }) {
				t.Fatalf("fault %s was not caught by %q; caught by:\n%s", fault, want, strings.Join(caught, "\n"))
			}
			t.Logf("caught by %d scenarios, e.g. %s", len(caught), caught[0])
		})
	}
}
