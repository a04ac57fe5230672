package suitefixtures

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"
)

// The diagnostic fixtures exist for the 2026-07-28 scenarios: tools that
// need a client capability, that ask within the request, whose input schema
// uses JSON Schema 2020-12, or whose parameter travels in an Mcp-Param
// header too.

// jsonSchema202012 is the input schema of json_schema_2020_12_tool: a
// 2020-12 schema using $defs with an $anchor, a $ref, composition
// (allOf/anyOf), conditionals (if/then/else) and additionalProperties, all
// of which a server must pass on unchanged.
const jsonSchema202012 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "address": {
      "$anchor": "addressDef",
      "type": "object",
      "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
    }
  },
  "properties": {
    "name": {"type": "string"},
    "address": {"$ref": "#/$defs/address"},
    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
    "phone": {"type": "string"},
    "email": {"type": "string"}
  },
  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
  "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
  "then": {"required": ["phone"]},
  "else": {"required": ["email"]},
  "additionalProperties": false
}`

// headerToolSchema is the input schema of test_custom_header: its region
// parameter is mirrored in the Mcp-Param-Region header (SEP-2243), which
// mcp-go checks against the body before the tool runs.
const headerToolSchema = `{
  "type": "object",
  "properties": {
    "region": {"type": "string", "description": "Region the request is routed to; also sent as Mcp-Param-Region", "x-mcp-header": "Region"},
    "note": {"type": "string", "description": "Free text, not mirrored in a header"}
  },
  "required": ["region"]
}`

// MissingCapabilityTool is the fixture that needs the client's sampling
// capability: called in the 2026 era without it, Intercept answers
// MissingRequiredClientCapability (-32021).
const MissingCapabilityTool = "test_missing_capability"

// addDiagnosticTools registers test_missing_capability,
// test_streaming_elicitation, json_schema_2020_12_tool and
// test_custom_header.
func (f *fixtures) addDiagnosticTools() {
	f.mcp.AddTool(mcp.NewTool(MissingCapabilityTool,
		mcp.WithDescription("Conformance fixture: needs the client's sampling capability; asks the client's LLM for a word.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			const key = "word"
			if res := mcpsrv.SamplingResponse(req.Params.InputResponses, key); res != nil {
				return textResult("The client's LLM answered: " + messageText(res.Content)), nil
			}
			if caps := clientCaps(ctx); caps == nil || caps.Sampling == nil {
				return mcp.NewToolResultError(MissingCapabilityTool + " requires the client's sampling capability, which it did not declare"), nil
			}
			return mcpsrv.NewInputRequestBuilder("").Sample(key, mcp.CreateMessageParams{
				Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("Say one word.")}},
				MaxTokens: 10,
			}).ToolResult(), nil
		})
	f.elicitingTool(mcp.NewTool("test_streaming_elicitation",
		mcp.WithDescription("Conformance fixture: asks the user to confirm; in the 2026 era the question is an input_required answer, never a request of the server's own on the stream.")),
		func(mcp.CallToolRequest) mcp.ElicitationParams {
			return mcp.ElicitationParams{Message: "Shall the streaming test continue?", RequestedSchema: objectSchema(map[string]any{
				"proceed": map[string]any{"type": "boolean", "description": "Continue the test"},
			}, "proceed")}
		}, "Streaming elicitation answered")
	f.mcp.AddTool(mcp.NewToolWithRawSchema("json_schema_2020_12_tool",
		"Conformance fixture: a tool whose input schema uses JSON Schema 2020-12 keywords ($defs, $anchor, $ref, allOf/anyOf, if/then/else).",
		json.RawMessage(jsonSchema202012)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult("json_schema_2020_12_tool received " + jsonText(req.GetArguments())), nil
		})
	f.mcp.AddTool(mcp.NewToolWithRawSchema("test_custom_header",
		"Conformance fixture: its region parameter is mirrored in the Mcp-Param-Region header, which must match the body (SEP-2243).",
		json.RawMessage(headerToolSchema)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult("region=" + req.GetString("region", "")), nil
		})
}
