package suitefixtures

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"
)

// The client-request fixtures ask the client for something while they run:
// an LLM completion (sampling) or the user's input (elicitation). Each is
// written once, as a multi round-trip handler: it answers input_required
// with its request, and finishes when called again with the answer. A
// 2026-era client does that round trip itself; for a 2025-era session
// mcp-go sends the server-initiated request (sampling/createMessage,
// elicitation/create) and calls the handler again with the answer.

// addClientRequestTools registers test_sampling, test_elicitation,
// test_elicitation_sep1034_defaults and test_elicitation_sep1330_enums.
func (f *fixtures) addClientRequestTools() {
	f.mcp.AddTool(mcp.NewTool("test_sampling",
		mcp.WithDescription("Conformance fixture: asks the client's LLM to answer the prompt (sampling) and returns the answer."),
		mcp.WithString("prompt", mcp.Required(), mcp.Description("The prompt sent to the client's LLM"))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			const key = "llm_answer"
			if res := mcpsrv.SamplingResponse(req.Params.InputResponses, key); res != nil {
				return textResult("LLM response: " + messageText(res.Content)), nil
			}
			if caps := clientCaps(ctx); caps != nil && caps.Sampling == nil {
				return mcp.NewToolResultError("test_sampling needs the client's sampling capability, which it did not declare"), nil
			}
			return mcpsrv.NewInputRequestBuilder("").Sample(key, mcp.CreateMessageParams{
				Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(req.GetString("prompt", ""))}},
				MaxTokens: 100,
			}).ToolResult(), nil
		})
	f.elicitingTool(mcp.NewTool("test_elicitation",
		mcp.WithDescription("Conformance fixture: asks the user (elicitation) for a username and an email address."),
		mcp.WithString("message", mcp.Required(), mcp.Description("The message shown to the user"))),
		func(req mcp.CallToolRequest) mcp.ElicitationParams {
			return mcp.ElicitationParams{Message: req.GetString("message", ""), RequestedSchema: objectSchema(map[string]any{
				"username": map[string]any{"type": "string", "description": "User's response"},
				"email":    map[string]any{"type": "string", "description": "User's email address"},
			}, "username", "email")}
		}, "User response")
	f.elicitingTool(mcp.NewTool("test_elicitation_sep1034_defaults",
		mcp.WithDescription("Conformance fixture: elicitation whose fields of every primitive type carry a default (SEP-1034).")),
		func(mcp.CallToolRequest) mcp.ElicitationParams {
			return mcp.ElicitationParams{Message: "Please review your details (defaults are filled in)", RequestedSchema: objectSchema(map[string]any{
				"name":     map[string]any{"type": "string", "description": "Full name", "default": "John Doe"},
				"age":      map[string]any{"type": "integer", "description": "Age in years", "default": 30},
				"score":    map[string]any{"type": "number", "description": "Score", "default": 95.5},
				"status":   map[string]any{"type": "string", "description": "Account status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
				"verified": map[string]any{"type": "boolean", "description": "Verified account", "default": true},
			})}
		}, "Elicitation completed")
	f.elicitingTool(mcp.NewTool("test_elicitation_sep1330_enums",
		mcp.WithDescription("Conformance fixture: elicitation with the five enum forms of SEP-1330.")),
		func(mcp.CallToolRequest) mcp.ElicitationParams {
			titled := func(prefix string, titles ...string) []any {
				out := make([]any, len(titles))
				for i, t := range titles {
					out[i] = map[string]any{"const": fmt.Sprintf("%s%d", prefix, i+1), "title": t}
				}
				return out
			}
			options := []string{"option1", "option2", "option3"}
			return mcp.ElicitationParams{Message: "Please choose among the options", RequestedSchema: objectSchema(map[string]any{
				"untitledSingle": map[string]any{"type": "string", "title": "Untitled single select", "enum": options},
				"titledSingle": map[string]any{"type": "string", "title": "Titled single select",
					"oneOf": titled("value", "First Option", "Second Option", "Third Option")},
				"legacyEnum": map[string]any{"type": "string", "title": "Legacy titled enum",
					"enum": []string{"opt1", "opt2", "opt3"}, "enumNames": []string{"Option One", "Option Two", "Option Three"}},
				"untitledMulti": map[string]any{"type": "array", "title": "Untitled multi select",
					"items": map[string]any{"type": "string", "enum": options}},
				"titledMulti": map[string]any{"type": "array", "title": "Titled multi select",
					"items": map[string]any{"anyOf": titled("value", "First Choice", "Second Choice", "Third Choice")}},
			})}
		}, "Elicitation completed")
}

// elicitingTool registers a tool that elicits what params describes and
// answers with the user's response, prefixed by label.
func (f *fixtures) elicitingTool(tool mcp.Tool, params func(mcp.CallToolRequest) mcp.ElicitationParams, label string) {
	const key = "user_input"
	f.mcp.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if res := mcpsrv.ElicitationResponse(req.Params.InputResponses, key); res != nil {
			return textResult(fmt.Sprintf("%s: action=%s, content=%s", label, res.Action, jsonText(res.Content))), nil
		}
		if caps := clientCaps(ctx); caps != nil && caps.Elicitation == nil {
			return mcp.NewToolResultError(tool.Name + " needs the client's elicitation capability, which it did not declare"), nil
		}
		return mcpsrv.NewInputRequestBuilder("").Elicit(key, params(req)).ToolResult(), nil
	})
}

// objectSchema is the JSON schema of an object with properties, of which
// required are required.
func objectSchema(properties map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": properties}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// clientCaps returns the capabilities the client declared: on the request
// in the 2026 era, at initialize in the 2025 era; nil when unknown.
func clientCaps(ctx context.Context) *mcp.ClientCapabilities {
	if info := mcpsrv.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return info.ClientCapabilities
	}
	if s, ok := mcpsrv.ClientSessionFromContext(ctx).(mcpsrv.SessionWithClientInfo); ok {
		caps := s.GetClientCapabilities()
		return &caps
	}
	return nil
}

// messageText returns the text of a sampling answer's content.
func messageText(content any) string {
	switch c := content.(type) {
	case mcp.TextContent:
		return c.Text
	case *mcp.TextContent:
		return c.Text
	case map[string]any:
		if t, ok := c["text"].(string); ok {
			return t
		}
	}
	return jsonText(content)
}

// jsonText renders v as compact JSON.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
