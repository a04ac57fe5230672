package conform

import (
	"fmt"
	"sort"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// CompareCounts checks the sidecar's counts against the harness's own: the
// requests per method, the tool calls per tool and operation, and the
// client notifications per method must be equal. A request the harness got
// no answer to (its server killed mid-call) may or may not have been
// counted by the sidecar, so up to that many more are allowed. One check per
// key, and one that no label fell back to "other".
func CompareCounts(h transcript.Counts, s sidecar.Counts) []scorecards.Check {
	var checks []scorecards.Check
	check := func(kind, key string, want, got int64) {
		lost := int64(h.UnansweredMethods[key])
		if kind == "tool calls" {
			lost = int64(h.UnansweredOperations[key])
		}
		if kind == "client notifications" {
			lost = 0
		}
		detail := fmt.Sprintf("harness sent %d, sidecar counted %d", want, got)
		if lost > 0 {
			detail += fmt.Sprintf(" (and %d got no answer)", lost)
		}
		checks = append(checks, scorecards.Check{Name: kind + " " + key, Passed: want <= got && got <= want+lost, Detail: detail})
	}
	methods := map[string]int64{}
	for k, v := range s.Requests {
		methods[k.Method] += v
	}
	for _, m := range union(h.Methods, methods) {
		check("requests", m, int64(h.Methods[m]), methods[m])
	}
	ops := map[string]int64{}
	other := int64(0)
	for k, v := range s.ToolCalls {
		ops[k.Tool+"/"+k.Operation] += v
		if k.Tool == sidecar.Other || k.Operation == sidecar.Other {
			other += v
		}
	}
	for k := range s.Requests {
		if k.Method == sidecar.Other {
			other += s.Requests[k]
		}
	}
	for _, op := range union(h.Operations, ops) {
		check("tool calls", op, int64(h.Operations[op]), ops[op])
	}
	notes := map[string]int64{}
	for k, v := range s.Notifications {
		if k.Direction == sidecar.DirectionIn {
			notes[k.Method] += v
		}
	}
	for _, n := range union(h.Notifications, notes) {
		check("client notifications", n, int64(h.Notifications[n]), notes[n])
	}
	checks = append(checks, scorecards.Check{Name: "no label fell back to \"other\"", Passed: other == 0,
		Detail: fmt.Sprintf("%d requests or tool calls labelled other", other)})
	return checks
}

func union[A, B int | int64](a map[string]A, b map[string]B) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// failedChecks lists the checks that did not pass.
func failedChecks(cs []scorecards.Check) []string {
	var out []string
	for _, c := range cs {
		if !c.Passed {
			out = append(out, c.Name+": "+c.Detail)
		}
	}
	return out
}

func summarise(cs []scorecards.Check) string {
	f := failedChecks(cs)
	if len(f) == 0 {
		return fmt.Sprintf("all %d count checks agree", len(cs))
	}
	return strings.Join(f, "; ")
}
