package conform_test

import (
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/conform"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokensidecar"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// valueCheck reports whether a check is one of CompareValues's.
func valueCheck(c scorecards.Check) bool {
	return strings.HasPrefix(c.Name, "duration of ") || strings.HasPrefix(c.Name, "bytes ") || c.Name == "the sidecar's values can be read"
}

// TestCompareValuesRules checks the bounds of CompareValues on made-up
// readings: the sidecar's durations at most the harness's round trips
// (plus 1 ms a call) and above zero, its bytes in equal to the bytes sent
// and its bytes out at least the bytes read.
func TestCompareValuesRules(t *testing.T) {
	const op = "thoughtbox_gateway/thought"
	tools := sidecar.Tools{"thoughtbox_gateway": {"thought"}}
	h := transcript.Counts{Methods: map[string]int{"tools/call": 4}, Operations: map[string]int{op: 4},
		Seconds: map[string]float64{"tools/call": 0.040}, OperationSeconds: map[string]float64{op: 0.040}}
	wire := conform.HarnessBytes{Sent: 1000, Received: 3000}
	right := func() conform.SidecarValues {
		return conform.SidecarValues{Methods: map[string]conform.DurationSum{"tools/call": {Count: 4, Seconds: 0.012}},
			Operations: map[string]conform.DurationSum{op: {Count: 4, Seconds: 0.012}}, BytesIn: 1000, BytesOut: 3000}
	}
	failed := func(s conform.SidecarValues, hc transcript.Counts) []string {
		var out []string
		for _, c := range conform.CompareValues(hc, wire, s, tools) {
			if !c.Passed {
				out = append(out, c.Name)
			}
		}
		return out
	}
	if f := failed(right(), h); len(f) > 0 {
		t.Fatalf("right values fail: %v", f)
	}
	cases := []struct {
		name   string
		change func(*conform.SidecarValues)
		fails  string // a check that must fail ("" for none)
	}{
		{"recorded in milliseconds", func(s *conform.SidecarValues) {
			s.Methods["tools/call"], s.Operations[op] = conform.DurationSum{Count: 4, Seconds: 12}, conform.DurationSum{Count: 4, Seconds: 12}
		}, "duration of requests tools/call"},
		{"longer than the round trips by more than 1 ms a call", func(s *conform.SidecarValues) {
			s.Operations[op] = conform.DurationSum{Count: 4, Seconds: 0.0445}
		}, "duration of tool calls " + op},
		{"within 1 ms a call of the round trips", func(s *conform.SidecarValues) {
			s.Operations[op] = conform.DurationSum{Count: 4, Seconds: 0.0435}
		}, ""},
		{"a thousandth of the server's time: too fast to tell", func(s *conform.SidecarValues) {
			s.Methods["tools/call"] = conform.DurationSum{Count: 4, Seconds: 0.000012}
		}, ""},
		{"never timed", func(s *conform.SidecarValues) {
			s.Methods["tools/call"] = conform.DurationSum{Count: 4}
		}, "duration of requests tools/call"},
		{"headers among the bytes in", func(s *conform.SidecarValues) { s.BytesIn += 4 * 240 }, "bytes in (client to server)"},
		{"fewer bytes in", func(s *conform.SidecarValues) { s.BytesIn-- }, "bytes in (client to server)"},
		{"no bytes out", func(s *conform.SidecarValues) { s.BytesOut = 0 }, "bytes out (server to client)"},
		{"more bytes out than were read", func(s *conform.SidecarValues) { s.BytesOut += 500 }, ""},
		// A request the sidecar refused is in neither count.
		{"fewer bytes in when the sidecar refused a request", func(s *conform.SidecarValues) { s.BytesIn, s.Rejected = 900, 1 }, "bytes in (client to server)"},
		{"fewer bytes out when the sidecar refused a request", func(s *conform.SidecarValues) { s.BytesOut, s.Rejected = 2900, 1 }, "bytes out (server to client)"},
		{"the same bytes when the sidecar refused a request", func(s *conform.SidecarValues) { s.Rejected = 1 }, ""},
	}
	for _, c := range cases {
		s := right()
		c.change(&s)
		f := failed(s, h)
		switch {
		case c.fails == "" && len(f) > 0:
			t.Errorf("%s: fails %v", c.name, f)
		case c.fails != "" && !strings.Contains(strings.Join(f, "\n"), c.fails):
			t.Errorf("%s: %q does not fail (failed: %v)", c.name, c.fails, f)
		}
	}
	// A request that got no answer may have been timed by the sidecar
	// beyond the harness's round trip: no upper bound for its method.
	lost := h
	lost.UnansweredMethods, lost.UnansweredOperations = map[string]int{"tools/call": 1}, map[string]int{op: 1}
	s := right()
	s.Methods["tools/call"], s.Operations[op] = conform.DurationSum{Count: 5, Seconds: 2}, conform.DurationSum{Count: 5, Seconds: 2}
	if f := failed(s, lost); len(f) > 0 {
		t.Errorf("a key with an unanswered request is held to the upper bound: %v", f)
	}
}

// TestParseSidecarValues reads the series CompareValues uses from a
// Prometheus exposition.
func TestParseSidecarValues(t *testing.T) {
	text := `# TYPE mcp_server_operation_duration_seconds histogram
mcp_server_operation_duration_seconds_bucket{mcp_method_name="tools/call",gen_ai_tool_name="thoughtbox_gateway",thoughtbox_operation="thought",le="0.005"} 2
mcp_server_operation_duration_seconds_sum{error_type="tool_error",gen_ai_tool_name="thoughtbox_gateway",mcp_method_name="tools/call",server_name="a \"b\"",thoughtbox_operation="thought"} 0.25
mcp_server_operation_duration_seconds_count{error_type="tool_error",gen_ai_tool_name="thoughtbox_gateway",mcp_method_name="tools/call",server_name="a \"b\"",thoughtbox_operation="thought"} 3
mcp_server_operation_duration_seconds_sum{gen_ai_tool_name="thoughtbox_gateway",mcp_method_name="tools/call",thoughtbox_operation="thought"} 0.5
mcp_server_operation_duration_seconds_count{gen_ai_tool_name="thoughtbox_gateway",mcp_method_name="tools/call",thoughtbox_operation="thought"} 4
mcp_server_operation_duration_seconds_sum{gen_ai_tool_name="_OTHER",mcp_method_name="tools/call"} 0.125
mcp_server_operation_duration_seconds_count{gen_ai_tool_name="_OTHER",mcp_method_name="tools/call"} 1
mcp_server_operation_duration_seconds_sum{mcp_method_name="ping"} 0.01
mcp_server_operation_duration_seconds_count{mcp_method_name="ping"} 2
mcp_sidecar_io_bytes_total{direction="in",server_name="a"} 1234
mcp_sidecar_io_bytes_total{direction="out",server_name="a"} 5678
mcp_sidecar_rejected_total{reason="body_too_large"} 1
`
	v, err := conform.ParseSidecarValues(text)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]conform.DurationSum{"tools/call": {Count: 8, Seconds: 0.875}, "ping": {Count: 2, Seconds: 0.01}}
	for k, w := range want {
		if v.Methods[k] != w {
			t.Errorf("method %s: %+v, want %+v", k, v.Methods[k], w)
		}
	}
	wantOps := map[string]conform.DurationSum{"thoughtbox_gateway/thought": {Count: 7, Seconds: 0.75}, "other/none": {Count: 1, Seconds: 0.125}}
	for k, w := range wantOps {
		if v.Operations[k] != w {
			t.Errorf("tool call %s: %+v, want %+v", k, v.Operations[k], w)
		}
	}
	if v.BytesIn != 1234 || v.BytesOut != 5678 || v.Rejected != 1 {
		t.Errorf("bytes in %g, out %g, rejected %g; want 1234, 5678, 1", v.BytesIn, v.BytesOut, v.Rejected)
	}
}

// TestSidecarValueFaultsAreCaught runs the sidecar suite's scenarios (tool
// errors, JSON-RPC errors) through the broken sidecar: without a fault its
// values agree with the harness's timings and bytes and the run passes;
// with each value fault (durations in milliseconds, headers among the
// bytes, every byte counted in) its counts still agree, a value check of
// the fault's kind fails and so does the run, though every scenario
// passed.
func TestSidecarValueFaultsAreCaught(t *testing.T) {
	t.Parallel()
	kinds := map[brokensidecar.Fault]string{brokensidecar.DurationsInMilliseconds: "duration of ",
		brokensidecar.BytesCountHeaders: "bytes in", brokensidecar.BytesOneDirection: "bytes "}
	for _, fault := range append([]brokensidecar.Fault{brokensidecar.None}, brokensidecar.ValueFaults...) {
		name := string(fault)
		if fault == brokensidecar.None {
			name = "no-fault"
		}
		t.Run(name, func(t *testing.T) {
			rep, _ := runBrokenSidecar(t, fault)
			var values, failedValues, failedCounts []string
			for _, c := range rep.Observability {
				switch {
				case valueCheck(c) && !c.Passed:
					failedValues = append(failedValues, c.Name+": "+c.Detail)
				case !c.Passed:
					failedCounts = append(failedCounts, c.Name+": "+c.Detail)
				}
				if valueCheck(c) {
					values = append(values, c.Name)
				}
			}
			if len(failedCounts) > 0 {
				t.Errorf("count checks fail:\n%s", strings.Join(failedCounts, "\n"))
			}
			joined := strings.Join(values, "\n")
			for _, want := range []string{"duration of requests tools/call", "duration of requests initialize", "duration of tool calls thoughtbox_gateway/",
				"bytes in (client to server)", "bytes out (server to client)"} {
				if !strings.Contains(joined, want) {
					t.Errorf("no value check %q among %v", want, values)
				}
			}
			if fault == brokensidecar.None {
				if len(failedValues) > 0 || !rep.Passed() {
					t.Fatalf("the sidecar without a fault: value checks failed:\n%s", strings.Join(failedValues, "\n"))
				}
				for _, c := range rep.Observability {
					if valueCheck(c) && (c.Name == "duration of requests tools/call" || strings.HasPrefix(c.Name, "bytes")) {
						t.Logf("%s: %s", c.Name, c.Detail)
					}
				}
				return
			}
			if rep.Passed() || !strings.Contains(strings.Join(failedValues, "\n"), kinds[fault]) {
				t.Fatalf("fault %s was not caught by a check of %q: passed %v, failed value checks:\n%s", fault, kinds[fault], rep.Passed(), strings.Join(failedValues, "\n"))
			}
			t.Logf("caught by %d value checks, e.g. %s", len(failedValues), failedValues[0])
		})
	}
}
