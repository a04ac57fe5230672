package conform

import (
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/outcome"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
)

// gatewayTools is a target that advertises thoughtbox_gateway with the
// operation thought.
var gatewayTools = sidecar.Tools{"thoughtbox_gateway": {"thought"}}

// checkResult returns the outcome of the named check.
func checkResult(t *testing.T, h transcript.Counts, s sidecar.Counts, name string) bool {
	t.Helper()
	for _, c := range CompareCounts(h, s, gatewayTools) {
		if c.Name == name {
			return c.Passed
		}
	}
	t.Fatalf("no check %q", name)
	return false
}

func allPass(h transcript.Counts, s sidecar.Counts) bool {
	for _, c := range CompareCounts(h, s, gatewayTools) {
		if !c.Passed {
			return false
		}
	}
	return true
}

// TestCompareCountsAllowsUnansweredRequests checks the rule: the sidecar
// must count every request the harness got an answer to, and may or may not
// count the ones that got none, under any status.
func TestCompareCountsAllowsUnansweredRequests(t *testing.T) {
	h := transcript.Counts{Methods: map[string]int{"ping": 3}, Operations: map[string]int{}, Notifications: map[string]int{},
		Statuses:          map[string]map[string]int{"ping": {outcome.OK: 3}},
		UnansweredMethods: map[string]int{"ping": 1}}
	for _, c := range []struct {
		ok, cancelled int64
		pass          bool
	}{{2, 0, false}, {3, 0, true}, {4, 0, true}, {3, 1, true}, {5, 0, false}, {3, 2, false}, {2, 1, false}} {
		s := sidecar.Counts{Requests: map[sidecar.MethodStatus]int64{{Method: "ping", Status: outcome.OK}: c.ok}}
		if c.cancelled > 0 {
			s.Requests[sidecar.MethodStatus{Method: "ping", Status: outcome.Cancelled}] = c.cancelled
		}
		if got := allPass(h, s); got != c.pass {
			t.Errorf("sidecar counted %d ok and %d cancelled of 3 answered ok and 1 unanswered: passed %v, want %v", c.ok, c.cancelled, got, c.pass)
		}
	}
}

// TestCompareCountsByStatus checks that the status is compared: a tool
// error the sidecar counts as ok, or a count whose status label is lost,
// fails, though the totals per method and operation agree.
func TestCompareCountsByStatus(t *testing.T) {
	const op = "thoughtbox_gateway/thought"
	h := transcript.Counts{Methods: map[string]int{"tools/call": 3}, Operations: map[string]int{op: 3}, Notifications: map[string]int{},
		Statuses:          map[string]map[string]int{"tools/call": {outcome.OK: 2, outcome.ToolError: 1}},
		OperationStatuses: map[string]map[string]int{op: {outcome.OK: 2, outcome.ToolError: 1}}}
	call := func(status string) sidecar.ToolCall {
		return sidecar.ToolCall{Tool: "thoughtbox_gateway", Operation: "thought", Status: status}
	}
	right := sidecar.Counts{
		Requests:  map[sidecar.MethodStatus]int64{{Method: "tools/call", Status: outcome.OK}: 2, {Method: "tools/call", Status: outcome.ToolError}: 1},
		ToolCalls: map[sidecar.ToolCall]int64{call(outcome.OK): 2, call(outcome.ToolError): 1},
	}
	if !allPass(h, right) {
		t.Fatalf("equal counts fail: %+v", CompareCounts(h, right, gatewayTools))
	}
	wrong := sidecar.Counts{Requests: right.Requests, ToolCalls: map[sidecar.ToolCall]int64{call(outcome.OK): 3}}
	if checkResult(t, h, wrong, `tool calls `+op+` status="tool_error"`) || !checkResult(t, h, wrong, "tool calls "+op) {
		t.Error("a tool error counted as ok is not caught by its own check")
	}
	lost := sidecar.Counts{Requests: map[sidecar.MethodStatus]int64{{Method: "tools/call"}: 3}, ToolCalls: right.ToolCalls}
	if checkResult(t, h, lost, `requests tools/call status=""`) || checkResult(t, h, lost, "every status label is known") {
		t.Error("a lost status label is not caught")
	}
}
