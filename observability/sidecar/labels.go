package sidecar

import "strconv"

// Label values that stand for "not in the allow-list" and "not applicable".
const (
	// Other replaces any label value that is not in its allow-list.
	Other = "other"
	// None is the operation label of a tool call whose tool has no
	// operation enum, or whose arguments carry no operation.
	None = "none"
)

// The values of the status label of completed requests are those of
// package outcome: OK, ToolError, Error and Cancelled.

// Values of the direction label.
const (
	// DirectionIn is client to server.
	DirectionIn = "in"
	// DirectionOut is server to client.
	DirectionOut = "out"
)

// Synthetic error_code label values for failures that carry no JSON-RPC code.
const (
	codeNone        = "none"
	codeTimeout     = "timeout"
	codeUnreachable = "upstream_unreachable"
	codeNoResponse  = "no_response"
	codeCancelled   = "cancelled"
)

// mcpMethods is the allow-list of the method label: every request and
// notification method of the MCP specification (2024-11-05 to 2026-07-28).
// The map value is the canonical string, so that label values never alias
// client buffers.
var mcpMethods = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{
		"initialize", "ping", "server/discover", "subscriptions/listen",
		"tools/list", "tools/call",
		"resources/list", "resources/templates/list", "resources/read",
		"resources/subscribe", "resources/unsubscribe",
		"prompts/list", "prompts/get",
		"logging/setLevel", "completion/complete",
		"sampling/createMessage", "roots/list", "elicitation/create",
		"tasks/get", "tasks/list", "tasks/result", "tasks/cancel",
		"notifications/initialized", "notifications/cancelled",
		"notifications/progress", "notifications/message",
		"notifications/resources/list_changed", "notifications/resources/updated",
		"notifications/prompts/list_changed", "notifications/tools/list_changed",
		"notifications/roots/list_changed", "notifications/tasks/status",
		"notifications/elicitation/complete",
		"notifications/subscriptions/acknowledged",
	} {
		m[s] = s
	}
	return m
}()

// methodLabel maps a JSON-RPC method to its label value.
func methodLabel(method string) string {
	if m, ok := mcpMethods[method]; ok {
		return m
	}
	return Other
}

// methodLabelBytes is methodLabel without converting (or allocating).
func methodLabelBytes(method []byte) string {
	if m, ok := mcpMethods[string(method)]; ok {
		return m
	}
	return Other
}

// jsonrpcCodeLabel maps a JSON-RPC error code to its error_code label: the
// codes of the JSON-RPC and MCP specifications and the implementation-defined
// server range -32000..-32099 keep their number, anything else is "other".
func jsonrpcCodeLabel(code int64) string {
	switch {
	case code == -32700, code == -32600, code == -32601, code == -32602, code == -32603,
		code == -32002, code == -32042,
		code <= -32000 && code >= -32099:
		return strconv.FormatInt(code, 10)
	}
	return Other
}

// httpCodeLabel maps an HTTP status to the error_code label "http_NNN".
func httpCodeLabel(status int) string {
	if status < 100 || status > 599 {
		return Other
	}
	return "http_" + strconv.Itoa(status)
}

// httpCodeStr is the code label of an upstream HTTP status.
func httpCodeStr(status int) string {
	if status < 100 || status > 599 {
		return Other
	}
	return strconv.Itoa(status)
}
