package conform_test

import (
	"testing"

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
	t.Parallel()
	ownServerFaults{tags: "@events,@observability && @own-server", what: "event and observability", minPassed: 9,
		catchers: eventCatchers, passing: []brokenserver.Fault{brokenserver.Reworded}}.run(t)
}
