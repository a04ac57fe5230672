package suitefixtures

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"
)

// The input_required fixtures (SEP-2322): tools, and one prompt, that ask
// the client for input within the request by answering
// resultType "input_required" with their inputRequests, and finish when the
// client retries with inputResponses. An answer that is missing, or that is
// not the kind of answer asked for, is asked for again; answers to questions
// never asked are ignored. Those that remember earlier rounds keep it in a
// signed requestState (state.go) and refuse one that fails its check.

// The keys of the fixtures' input requests, as the suite's scenarios name
// them.
const (
	keyUserName  = "user_name"
	keyCapital   = "capital_question"
	keyRoots     = "client_roots"
	keyConfirm   = "confirm"
	keyGreeting  = "greeting"
	keyStep1     = "step1"
	keyStep2     = "step2"
	keyContext   = "user_context"
	keySampling  = "sampling_probe"
	keyElicit    = "elicitation_probe"
	keyRootsList = "roots_probe"
)

// nameRequest asks the user for their name.
func nameRequest(message string) mcp.ElicitationParams {
	return mcp.ElicitationParams{Message: message, RequestedSchema: objectSchema(map[string]any{
		"name": map[string]any{"type": "string", "description": "Your name"},
	}, "name")}
}

// confirmRequest asks the user for a yes or no.
func confirmRequest(message string) mcp.ElicitationParams {
	return mcp.ElicitationParams{Message: message, RequestedSchema: objectSchema(map[string]any{
		"ok": map[string]any{"type": "boolean", "description": "Confirm"},
	}, "ok")}
}

// sampleRequest asks the client's LLM for an answer to text.
func sampleRequest(text string, maxTokens int) mcp.CreateMessageParams {
	return mcp.CreateMessageParams{
		Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(text)}},
		MaxTokens: maxTokens,
	}
}

// accepted returns the content of an accepted elicitation answer under key,
// and whether there is an answer under key at all (accepted or not).
func accepted(responses mcp.InputResponses, key string) (map[string]any, *mcp.ElicitationResult) {
	res := mcpsrv.ElicitationResponse(responses, key)
	if res == nil {
		return nil, nil
	}
	content, _ := res.Content.(map[string]any)
	if res.Action != mcp.ElicitationResponseActionAccept {
		content = nil
	}
	return content, res
}

// field returns content[name] as text ("" when absent).
func field(content map[string]any, name string) string {
	v, ok := content[name]
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// rootsText lists roots as "uri (name)".
func rootsText(r *mcp.ListRootsResult) string {
	if len(r.Roots) == 0 {
		return "no roots"
	}
	parts := make([]string, len(r.Roots))
	for i, root := range r.Roots {
		parts[i] = root.URI
		if root.Name != "" {
			parts[i] += " (" + root.Name + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// needsCapability is the tool result of a fixture that cannot ask without
// a client capability.
func needsCapability(tool, capability string) *mcp.CallToolResult {
	return mcp.NewToolResultError(fmt.Sprintf("%s asks the client for input that needs its %s capability, which it did not declare", tool, capability))
}

// inputTool registers a fixture tool without arguments.
func (f *fixtures) inputTool(name, description string, handler mcpsrv.ToolHandlerFunc) {
	f.mcp.AddTool(mcp.NewTool(name, mcp.WithDescription(description)), handler)
}

// addInputRequiredFixtures registers the test_input_required_result_*
// tools and the test_input_required_result_prompt prompt.
func (f *fixtures) addInputRequiredFixtures() {
	f.inputTool("test_input_required_result_elicitation",
		"Conformance fixture (SEP-2322): asks the user's name within the request, then greets them.",
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if content, res := accepted(req.Params.InputResponses, keyUserName); res != nil {
				if name := field(content, "name"); name != "" {
					return textResult("Hello, " + name + "!"), nil
				}
				if res.Action != mcp.ElicitationResponseActionAccept {
					return textResult("No name was given (the user chose " + string(res.Action) + ")."), nil
				}
			}
			if caps := clientCaps(ctx); caps != nil && caps.Elicitation == nil {
				return needsCapability("test_input_required_result_elicitation", "elicitation"), nil
			}
			return mcpsrv.NewInputRequestBuilder("").Elicit(keyUserName, nameRequest("What is your name?")).ToolResult(), nil
		})

	f.inputTool("test_input_required_result_sampling",
		"Conformance fixture (SEP-2322): asks the client's LLM a question within the request, then reports its answer.",
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if res := mcpsrv.SamplingResponse(req.Params.InputResponses, keyCapital); res != nil {
				return textResult("The client's LLM answered: " + messageText(res.Content)), nil
			}
			if caps := clientCaps(ctx); caps != nil && caps.Sampling == nil {
				return needsCapability("test_input_required_result_sampling", "sampling"), nil
			}
			return mcpsrv.NewInputRequestBuilder("").Sample(keyCapital, sampleRequest("What is the capital of France?", 100)).ToolResult(), nil
		})

	f.inputTool("test_input_required_result_list_roots",
		"Conformance fixture (SEP-2322): asks for the client's roots within the request, then lists them.",
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if res := mcpsrv.RootsResponse(req.Params.InputResponses, keyRoots); res != nil {
				return textResult("The client's roots: " + rootsText(res)), nil
			}
			if caps := clientCaps(ctx); caps != nil && caps.Roots == nil {
				return needsCapability("test_input_required_result_list_roots", "roots"), nil
			}
			return mcpsrv.NewInputRequestBuilder("").Roots(keyRoots).ToolResult(), nil
		})

	f.addStatefulInputTools()

	f.inputTool("test_input_required_result_capabilities",
		"Conformance fixture (SEP-2322): asks only for what the client's declared capabilities allow (sampling, elicitation, roots).",
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			caps := clientCaps(ctx)
			if caps == nil {
				caps = &mcp.ClientCapabilities{}
			}
			b := mcpsrv.NewInputRequestBuilder("")
			var got []string
			asked := false
			if caps.Sampling != nil {
				if res := mcpsrv.SamplingResponse(req.Params.InputResponses, keySampling); res != nil {
					got = append(got, "sampling: "+messageText(res.Content))
				} else {
					b.Sample(keySampling, sampleRequest("Name a colour.", 20))
					asked = true
				}
			}
			if caps.Elicitation != nil {
				if _, res := accepted(req.Params.InputResponses, keyElicit); res != nil {
					got = append(got, "elicitation: "+string(res.Action))
				} else {
					b.Elicit(keyElicit, confirmRequest("May the test continue?"))
					asked = true
				}
			}
			if caps.Roots != nil {
				if res := mcpsrv.RootsResponse(req.Params.InputResponses, keyRootsList); res != nil {
					got = append(got, "roots: "+rootsText(res))
				} else {
					b.Roots(keyRootsList)
					asked = true
				}
			}
			if asked {
				return b.ToolResult(), nil
			}
			if len(got) == 0 {
				return textResult("The client declared none of sampling, elicitation and roots: nothing to ask."), nil
			}
			return textResult("Answers gathered within the declared capabilities: " + strings.Join(got, "; ")), nil
		})

	f.mcp.AddPrompt(mcp.NewPrompt("test_input_required_result_prompt",
		mcp.WithPromptTitle("Prompt asking for context"),
		mcp.WithPromptDescription("Conformance fixture (SEP-2322): prompts/get asks the user for the context to use, then builds the prompt from it.")),
		func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if content, res := accepted(req.Params.InputResponses, keyContext); res != nil && field(content, "context") != "" {
				return mcp.NewGetPromptResult("A prompt built from the context the user gave",
					[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser,
						mcp.NewTextContent("Work within this context: "+field(content, "context")))}), nil
			}
			return mcpsrv.NewInputRequestBuilder("").Elicit(keyContext, mcp.ElicitationParams{
				Message: "What context should the prompt use?",
				RequestedSchema: objectSchema(map[string]any{
					"context": map[string]any{"type": "string", "description": "Context for the prompt"},
				}, "context"),
			}).PromptResult(), nil
		})
}

// addStatefulInputTools registers the fixtures whose rounds are tied
// together by a signed requestState: request_state, tampered_state,
// multiple_inputs and multi_round.
func (f *fixtures) addStatefulInputTools() {
	// confirmTool asks for a confirmation with a signed state, and checks
	// the state when the answer comes back.
	confirmTool := func(name, description string) {
		f.inputTool(name, description, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if token := req.Params.RequestState; token != "" {
				if _, err := f.states.open(token, name); err != nil {
					return nil, err
				}
				if content, res := accepted(req.Params.InputResponses, keyConfirm); res != nil {
					return textResult(fmt.Sprintf("state-ok: the requestState passed its integrity check; action=%s, ok=%s",
						res.Action, field(content, "ok"))), nil
				}
			}
			if caps := clientCaps(ctx); caps != nil && caps.Elicitation == nil {
				return needsCapability(name, "elicitation"), nil
			}
			return mcpsrv.NewInputRequestBuilder(f.states.sign(roundState{Tool: name, Round: 1})).
				Elicit(keyConfirm, confirmRequest("Please confirm")).ToolResult(), nil
		})
	}
	confirmTool("test_input_required_result_request_state",
		"Conformance fixture (SEP-2322): asks for a confirmation with a signed requestState, and checks the state it gets back.")
	confirmTool("test_input_required_result_tampered_state",
		"Conformance fixture (SEP-2322): like the request_state fixture; a requestState changed by the client is refused with an error.")

	const multiple = "test_input_required_result_multiple_inputs"
	f.inputTool(multiple,
		"Conformance fixture (SEP-2322): asks for the user's name, an LLM greeting and the client's roots at once; finishes when all three are answered.",
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			caps := clientCaps(ctx)
			if caps == nil {
				caps = &mcp.ClientCapabilities{}
			}
			answered := req.Params.RequestState != ""
			if answered {
				if _, err := f.states.open(req.Params.RequestState, multiple); err != nil {
					return nil, err
				}
			}
			b := mcpsrv.NewInputRequestBuilder(f.states.sign(roundState{Tool: multiple, Round: 1}))
			var parts []string
			asked := false
			if caps.Elicitation != nil {
				if content, res := accepted(req.Params.InputResponses, keyUserName); answered && res != nil {
					parts = append(parts, "name="+field(content, "name"))
				} else {
					b.Elicit(keyUserName, nameRequest("What is your name?"))
					asked = true
				}
			}
			if caps.Sampling != nil {
				if res := mcpsrv.SamplingResponse(req.Params.InputResponses, keyGreeting); answered && res != nil {
					parts = append(parts, "greeting="+messageText(res.Content))
				} else {
					b.Sample(keyGreeting, sampleRequest("Generate a greeting", 50))
					asked = true
				}
			}
			if caps.Roots != nil {
				if res := mcpsrv.RootsResponse(req.Params.InputResponses, keyRoots); answered && res != nil {
					parts = append(parts, "roots="+rootsText(res))
				} else {
					b.Roots(keyRoots)
					asked = true
				}
			}
			if asked {
				return b.ToolResult(), nil
			}
			if len(parts) == 0 {
				return mcp.NewToolResultError(multiple + " needs the client's elicitation, sampling or roots capability; it declared none"), nil
			}
			return textResult("All inputs received: " + strings.Join(parts, "; ")), nil
		})

	const multiRound = "test_input_required_result_multi_round"
	// askColour is the second round's question, with the name of the first
	// in its state.
	askColour := func(values map[string]string) *mcp.CallToolResult {
		return mcpsrv.NewInputRequestBuilder(f.states.sign(roundState{Tool: multiRound, Round: 2, Values: values})).
			Elicit(keyStep2, mcp.ElicitationParams{Message: "Step 2: What is your favorite color?", RequestedSchema: objectSchema(map[string]any{
				"color": map[string]any{"type": "string", "description": "Favourite colour"},
			}, "color")}).ToolResult()
	}
	f.inputTool(multiRound,
		"Conformance fixture (SEP-2322): asks for the user's name, then in a second round their favourite colour; each round has its own signed requestState.",
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			round, values := 0, map[string]string{}
			if token := req.Params.RequestState; token != "" {
				st, err := f.states.open(token, multiRound)
				if err != nil {
					return nil, err
				}
				round = st.Round
				for k, v := range st.Values {
					values[k] = v
				}
			}
			switch round {
			case 1:
				if content, res := accepted(req.Params.InputResponses, keyStep1); res != nil {
					values["name"] = field(content, "name")
					return askColour(values), nil
				}
			case 2:
				if content, res := accepted(req.Params.InputResponses, keyStep2); res != nil {
					return textResult(fmt.Sprintf("Done after three rounds: name=%s, favourite colour=%s", values["name"], field(content, "color"))), nil
				}
				// The second round's answer is missing: ask again.
				return askColour(values), nil
			}
			if caps := clientCaps(ctx); caps != nil && caps.Elicitation == nil {
				return needsCapability(multiRound, "elicitation"), nil
			}
			return mcpsrv.NewInputRequestBuilder(f.states.sign(roundState{Tool: multiRound, Round: 1})).
				Elicit(keyStep1, nameRequest("Step 1: What is your name?")).ToolResult(), nil
		})
}
