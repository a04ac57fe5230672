package conform

import (
	"fmt"
	"sort"
	"strings"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// statusLabels maps the outcomes the harness records to the values of the
// sidecar's status label.
var statusLabels = map[string]string{
	transcript.StatusOK:        sidecar.StatusOK,
	transcript.StatusToolError: sidecar.StatusToolError,
	transcript.StatusError:     sidecar.StatusError,
}

// knownStatuses are the values the sidecar's status label may take.
var knownStatuses = map[string]bool{sidecar.StatusOK: true, sidecar.StatusToolError: true, sidecar.StatusError: true,
	sidecar.StatusCancelled: true}

// CompareCounts checks the sidecar's counts against the harness's own: the
// requests per method, and per method and status; the tool calls per tool
// and operation, and per tool, operation and status; the client
// notifications per method. Each must be equal. A request the harness got
// no answer to (its server killed mid-call) may or may not have been
// counted by the sidecar, under any status, so up to that many more are
// allowed for its method (or tool and operation). One check per key, one
// that no method label fell back to "other", and one that every status
// label is one the sidecar defines (a lost label is empty).
//
// The harness's tool calls are labelled as the sidecar labels them
// (sidecar.Tools.CallLabels, given the tools the target advertised): a call
// to a tool the target does not have is "other" on both sides, and one to
// an operation outside the tool's enum is the tool's "other".
func CompareCounts(h transcript.Counts, s sidecar.Counts, tools sidecar.Tools) []scorecards.Check {
	h = relabel(h, tools)
	var checks []scorecards.Check
	check := func(name string, want, got, lost int64) {
		detail := fmt.Sprintf("harness %d, sidecar counted %d", want, got)
		if lost > 0 {
			detail += fmt.Sprintf(" (and %d got no answer)", lost)
		}
		checks = append(checks, scorecards.Check{Name: name, Passed: want <= got && got <= want+lost, Detail: detail})
	}
	// byStatus compares one family: harness counts per key and outcome
	// against the sidecar's per key and status label.
	byStatus := func(kind string, hTotal map[string]int, hStatus map[string]map[string]int, lost map[string]int,
		sStatus map[string]map[string]int64) {
		sTotal := map[string]int64{}
		for k, m := range sStatus {
			for _, v := range m {
				sTotal[k] += v
			}
		}
		for _, k := range union(hTotal, sTotal) {
			l := int64(lost[k])
			check(kind+" "+k, int64(hTotal[k]), sTotal[k], l)
			want := map[string]int{}
			for outcome, v := range hStatus[k] {
				label, ok := statusLabels[outcome]
				if !ok {
					label = "harness outcome " + outcome
				}
				want[label] += v
			}
			for _, st := range union(want, sStatus[k]) {
				check(fmt.Sprintf("%s %s status=%q", kind, k, st), int64(want[st]), sStatus[k][st], l)
			}
		}
	}
	methods := map[string]map[string]int64{}
	other, unknown := int64(0), map[string]int64{}
	for k, v := range s.Requests {
		add64(methods, k.Method, k.Status, v)
		if k.Method == sidecar.Other {
			other += v
		}
		if !knownStatuses[k.Status] {
			unknown[fmt.Sprintf("%s status=%q", k.Method, k.Status)] += v
		}
	}
	byStatus("requests", h.Methods, h.Statuses, h.UnansweredMethods, methods)
	ops := map[string]map[string]int64{}
	for k, v := range s.ToolCalls {
		op := k.Tool + "/" + k.Operation
		add64(ops, op, k.Status, v)
		if !knownStatuses[k.Status] {
			unknown[fmt.Sprintf("%s status=%q", op, k.Status)] += v
		}
	}
	byStatus("tool calls", h.Operations, h.OperationStatuses, h.UnansweredOperations, ops)
	notes := map[string]int64{}
	for k, v := range s.Notifications {
		if k.Direction == sidecar.DirectionIn {
			notes[k.Method] += v
		}
	}
	for _, n := range union(h.Notifications, notes) {
		check("client notifications "+n, int64(h.Notifications[n]), notes[n], 0)
	}
	checks = append(checks, scorecards.Check{Name: "no method label fell back to \"other\"", Passed: other == 0,
		Detail: fmt.Sprintf("%d requests labelled other", other)})
	var bad []string
	for _, k := range union(unknown, map[string]int{}) {
		bad = append(bad, fmt.Sprintf("%s: %d", k, unknown[k]))
	}
	detail := "every count's status is ok, tool_error, error or cancelled"
	if len(bad) > 0 {
		detail = "counts with a status label missing or unknown: " + strings.Join(bad, ", ")
	}
	checks = append(checks, scorecards.Check{Name: "every status label is known", Passed: len(bad) == 0, Detail: detail})
	return checks
}

// relabel returns h with its tool calls keyed by the sidecar's labels
// ("tool/operation" as tools.CallLabels gives them) instead of the names the
// harness sent.
func relabel(h transcript.Counts, tools sidecar.Tools) transcript.Counts {
	key := func(k string) string {
		name, op, _ := strings.Cut(k, "/")
		t, o := tools.CallLabels(name, op, op != "")
		return t + "/" + o
	}
	ops := map[string]int{}
	for k, v := range h.Operations {
		ops[key(k)] += v
	}
	statuses := map[string]map[string]int{}
	for k, m := range h.OperationStatuses {
		nk := key(k)
		if statuses[nk] == nil {
			statuses[nk] = map[string]int{}
		}
		for st, v := range m {
			statuses[nk][st] += v
		}
	}
	var lost map[string]int
	if h.UnansweredOperations != nil {
		lost = map[string]int{}
		for k, v := range h.UnansweredOperations {
			lost[key(k)] += v
		}
	}
	h.Operations, h.OperationStatuses, h.UnansweredOperations = ops, statuses, lost
	return h
}

func add64(m map[string]map[string]int64, key, status string, n int64) {
	if m[key] == nil {
		m[key] = map[string]int64{}
	}
	m[key][status] += n
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
