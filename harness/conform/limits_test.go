package conform_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
)

// limitFaultSuites names, for each fault of documented defaults and limits
// caught by a run against the proxy, the feature file and the suite whose
// scenarios must catch it (checkFaultCaught's scope).
var limitFaultSuites = map[brokenserver.Fault]string{
	brokenserver.PromptDefaultFifty:               "limits.feature @resources",
	brokenserver.RevisionsDirectOnly:              "resources.feature @resources",
	brokenserver.RefusedFirstThoughtLeavesSession: "limits.feature @validation",
	brokenserver.BranchFromAloneAccepted:          "validation.feature @validation",
	brokenserver.ListLimitClamped:                 "sessions.feature @sessions",
	brokenserver.ListDefaultTen:                   "sessions.feature @sessions",
	brokenserver.ListNegativeOffsetAccepted:       "limits.feature @sessions",
	brokenserver.SearchDefaultFifty:               "limits.feature @sessions",
	brokenserver.ListSessionsDefaultTen:           "limits.feature @sessions",
}

// limitEventCatchers names the scenario that must catch each limit fault
// of the event stream (its scenarios start a server of their own).
var limitEventCatchers = map[brokenserver.Fault]string{
	brokenserver.EventPreview101: "a thought_added event carries a thought of 100 characters whole and cuts one of 101",
}

// TestLimitFaultsAreCaught runs each fault of brokenserver.LimitFaults
// through the scenarios that must catch it, in one era, the eras taken in
// turn, and the proxy without a fault through all of them in both; the event stream's fault runs with the
// event scenarios' own servers behind the proxy.
func TestLimitFaultsAreCaught(t *testing.T) {
	t.Parallel()
	for _, f := range brokenserver.LimitFaults {
		_, viaProxy := limitFaultSuites[f]
		_, viaEvents := limitEventCatchers[f]
		if !viaProxy && !viaEvents {
			t.Fatalf("fault %s has no suite or scenario that must catch it", f)
		}
	}
	t.Run("proxy", func(t *testing.T) {
		ref, err := targetspec.Spec{Transport: "http", Storage: "memory", Direct: true}.Open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ref.Close() }) // after the parallel subtests
		var faults []brokenserver.Fault
		files, suites := map[string]bool{}, map[string]bool{}
		for _, f := range brokenserver.LimitFaults {
			if scope, ok := limitFaultSuites[f]; ok {
				faults = append(faults, f)
				fs, tags := scopeOf(scope)
				for _, file := range fs {
					files[file] = true
				}
				suites[tags] = true
			}
		}
		all := strings.Join(slices.Sorted(maps.Keys(files)), " ") + " " + strings.Join(slices.Sorted(maps.Keys(suites)), ",")
		for _, c := range alternateEras(faults) {
			fault, era := c.fault, c.era
			name, tags := string(fault), limitFaultSuites[fault]
			if fault == brokenserver.None {
				name, tags = "no-fault", all
			}
			t.Run(string(era)+"/"+name, func(t *testing.T) {
				t.Parallel()
				checkFaultCaught(t, ref, fault, tags, era)
			})
		}
	})
	t.Run("events", func(t *testing.T) {
		ownServerFaults{tags: "@events && @own-server", what: "event", minPassed: 3, catchers: limitEventCatchers}.run(t)
	})
}
