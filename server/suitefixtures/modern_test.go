package suitefixtures_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestModernInputRequiredRoundTrips drives the input_required fixtures with
// mcp-go's client in its 2026 mode, which answers each input request with
// its handlers and retries: one round, several requests in one round, three
// rounds with a new requestState each, a prompt, and a client that declares
// only sampling.
func TestModernInputRequiredRoundTrips(t *testing.T) {
	url := startServer(t, true)
	a := &answers{}
	c := dialModern(t, url, a)

	if got := firstText(call(t, c, "test_input_required_result_elicitation", nil)); got != "Hello, Alice!" {
		t.Errorf("elicitation: %q", got)
	}
	if got := firstText(call(t, c, "test_input_required_result_sampling", nil)); got != "The client's LLM answered: sampled: What is the capital of France?" {
		t.Errorf("sampling: %q", got)
	}
	if got := firstText(call(t, c, "test_input_required_result_list_roots", nil)); got != "The client's roots: file:///work/fixtures (fixtures)" {
		t.Errorf("roots: %q", got)
	}
	if got := firstText(call(t, c, "test_input_required_result_request_state", nil)); !strings.HasPrefix(got, "state-ok") {
		t.Errorf("request_state: %q", got)
	}
	before := a.elicited.Load()
	got := firstText(call(t, c, "test_input_required_result_multi_round", nil))
	if got != "Done after three rounds: name=Alice, favourite colour=blue" || a.elicited.Load()-before != 2 {
		t.Errorf("multi_round: %q after %d elicitations", got, a.elicited.Load()-before)
	}
	sampled, listed := a.sampled.Load(), a.listed.Load()
	got = firstText(call(t, c, "test_input_required_result_multiple_inputs", nil))
	if !strings.Contains(got, "name=Alice") || !strings.Contains(got, "greeting=sampled: Generate a greeting") ||
		!strings.Contains(got, "roots=file:///work/fixtures") || a.sampled.Load() != sampled+1 || a.listed.Load() != listed+1 {
		t.Errorf("multiple_inputs: %q", got)
	}

	req := mcp.GetPromptRequest{}
	req.Params.Name = "test_input_required_result_prompt"
	prompt, err := c.GetPrompt(ctx(t), req)
	if err != nil || len(prompt.Messages) != 1 || prompt.Messages[0].Content.(mcp.TextContent).Text != "Work within this context: the tests" {
		t.Fatalf("prompt: %v %+v", err, prompt)
	}

	// A client that declares only sampling is asked only to sample.
	r := post(t, url, "tools/call", map[string]any{"name": "test_input_required_result_capabilities", "arguments": map[string]any{}},
		map[string]any{"sampling": map[string]any{}}, nil)
	res := r.mustResult(t, "capabilities")
	reqs, _ := res["inputRequests"].(map[string]any)
	if res["resultType"] != "input_required" || len(reqs) != 1 {
		t.Fatalf("capabilities: %v", res)
	}
	for _, v := range reqs {
		if m := v.(map[string]any)["method"]; m != "sampling/createMessage" {
			t.Errorf("capabilities asked %v of a sampling-only client", m)
		}
	}
}

// TestModernRequestStateIntegrity checks that a changed requestState, or
// one issued for another fixture, is refused with an error, and that a
// missing answer is asked for again rather than refused.
func TestModernRequestStateIntegrity(t *testing.T) {
	url := startServer(t, true)
	const tool = "test_input_required_result_tampered_state"
	first := post(t, url, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{}}, allCaps, nil).mustResult(t, "round 1")
	state, _ := first["requestState"].(string)
	if first["resultType"] != "input_required" || state == "" {
		t.Fatalf("round 1: %v", first)
	}
	answer := map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}}
	retry := func(tool, state string) rpc {
		return post(t, url, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{},
			"inputResponses": answer, "requestState": state}, allCaps, nil)
	}
	if r := retry(tool, state+"-TAMPERED"); r.Error == nil {
		t.Errorf("a tampered requestState was accepted: %v", r.Result)
	}
	payload, sig, _ := strings.Cut(state, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(payload)
	forged := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), `"round":1`, `"round":2`, 1))) + "." + sig
	if r := retry(tool, forged); r.Error == nil {
		t.Errorf("a requestState with a changed payload was accepted: %v", r.Result)
	}
	if r := retry("test_input_required_result_request_state", state); r.Error == nil {
		t.Errorf("another fixture's requestState was accepted: %v", r.Result)
	}
	if r := retry(tool, state).mustResult(t, "round 2"); r["resultType"] != "complete" {
		t.Errorf("round 2 with the state as issued: %v", r)
	}

	r := post(t, url, "tools/call", map[string]any{"name": "test_input_required_result_elicitation", "arguments": map[string]any{},
		"inputResponses": map[string]any{"wrong_key": map[string]any{"action": "accept", "content": map[string]any{}}}}, allCaps, nil).mustResult(t, "wrong key")
	if r["resultType"] != "input_required" {
		t.Errorf("a missing answer must be asked again: %v", r)
	}
}

// TestModernDiagnostics checks the 2026-era diagnostic fixtures on the
// wire: -32021 with its data for an undeclared capability, log messages
// only at a requested level, the elicitation asked within the request, and
// the Mcp-Param header checked against the body.
func TestModernDiagnostics(t *testing.T) {
	url := startServer(t, true)

	r := post(t, url, "tools/call", map[string]any{"name": "test_missing_capability", "arguments": map[string]any{}}, noCaps, nil)
	if r.Status != http.StatusBadRequest || r.Error == nil || r.Error.Code != mcp.MISSING_REQUIRED_CLIENT_CAPABILITY {
		t.Fatalf("test_missing_capability without sampling: HTTP %d, %+v", r.Status, r.Error)
	}
	if req, _ := r.Error.Data["requiredCapabilities"].(map[string]any); req == nil || req["sampling"] == nil {
		t.Errorf("-32021 data: %v", r.Error.Data)
	}
	r = post(t, url, "tools/call", map[string]any{"name": "test_missing_capability", "arguments": map[string]any{}}, noCaps,
		map[string]string{mcp.HeaderMethod: "tools/list"})
	if r.Status != http.StatusBadRequest || r.Error == nil || r.Error.Code != mcp.HEADER_MISMATCH {
		t.Errorf("a mismatched Mcp-Method goes before the capability: HTTP %d, %+v", r.Status, r.Error)
	}
	withSampling := post(t, url, "tools/call", map[string]any{"name": "test_missing_capability", "arguments": map[string]any{}}, allCaps, nil)
	if res := withSampling.mustResult(t, "with sampling"); res["resultType"] != "input_required" {
		t.Errorf("test_missing_capability with sampling declared: %v", res)
	}

	silent := post(t, url, "tools/call", map[string]any{"name": "test_logging_tool", "arguments": map[string]any{}}, noCaps, nil)
	silent.mustResult(t, "logging without a level")
	for _, ev := range silent.Events {
		if ev["method"] == "notifications/message" {
			t.Errorf("a log message without a requested level: %v", ev)
		}
	}
	loud := post(t, url, "tools/call", map[string]any{"name": "test_logging_tool", "arguments": map[string]any{},
		"_meta": map[string]any{mcp.MetaKeyLogLevel: "warning"}}, noCaps, nil)
	loud.mustResult(t, "logging at warning")
	var levels []any
	for _, ev := range loud.Events {
		if ev["method"] == "notifications/message" {
			levels = append(levels, ev["params"].(map[string]any)["level"])
		}
	}
	if len(levels) != 2 || levels[0] != "warning" || levels[1] != "error" {
		t.Errorf("log messages at level warning: %v", levels)
	}

	stream := post(t, url, "tools/call", map[string]any{"name": "test_streaming_elicitation", "arguments": map[string]any{}},
		map[string]any{"elicitation": map[string]any{}}, nil)
	if res := stream.mustResult(t, "streaming elicitation"); res["resultType"] != "input_required" || len(stream.Events) != 0 {
		t.Errorf("streaming elicitation: %v, events %v", res, stream.Events)
	}

	header := func(value, body string) rpc {
		return post(t, url, "tools/call", map[string]any{"name": "test_custom_header", "arguments": map[string]any{"region": body}},
			noCaps, map[string]string{"Mcp-Param-Region": value})
	}
	if r := header("=?base64?"+base64.StdEncoding.EncodeToString([]byte("eu-west"))+"?=", "eu-west"); r.Error != nil || firstOf(r) != "region=eu-west" {
		t.Errorf("a matching Base64 header: HTTP %d %+v %v", r.Status, r.Error, r.Result)
	}
	for _, bad := range []string{"us-east", "=?base64?ZXUtd2VzdA?=", ""} {
		if r := header(bad, "eu-west"); r.Status != http.StatusBadRequest || r.Error == nil || r.Error.Code != mcp.HEADER_MISMATCH {
			t.Errorf("Mcp-Param-Region %q for eu-west: HTTP %d %+v", bad, r.Status, r.Error)
		}
	}
}

// firstOf is the text of the first content block of a tools/call result.
func firstOf(r rpc) string {
	content, _ := r.Result["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	s, _ := content[0].(map[string]any)["text"].(string)
	return s
}
