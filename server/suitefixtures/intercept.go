package suitefixtures

import (
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
)

// Intercept answers the one fixture request an mcp-go handler cannot: a
// 2026-era tools/call of test_missing_capability from a client that did not
// declare sampling. The answer is a MissingRequiredClientCapability error
// (-32021, HTTP 400) whose data names the capability as a
// ClientCapabilities object ({"sampling": {}}); mcp-go reports every error
// of a tool handler as -32603.
//
// Everything else, including any request that is not a well-formed
// 2026-era request (mcp-go rejects those itself), is left to mcp-go. The
// request is checked as mcp-go would check it first: Mcp-Method and
// Mcp-Name must match the body (HeaderMismatch, -32020, HTTP 400).
//
// r is a POST on the MCP endpoint whose body is body. Intercept reports
// whether it answered; when it reports false it has written nothing.
func Intercept(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if r.Method != http.MethodPost || r.Header.Get(mcp.HeaderLastEventID) != "" {
		return false
	}
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.JSONRPC != mcp.JSONRPC_VERSION || len(msg.ID) == 0 || string(msg.ID) == "null" ||
		msg.Method != string(mcp.MethodToolsCall) {
		return false
	}
	var p struct {
		Meta *mcp.Meta `json:"_meta"`
		Name string    `json:"name"`
	}
	if json.Unmarshal(msg.Params, &p) != nil || p.Name != MissingCapabilityTool {
		return false
	}
	version := p.Meta.ProtocolVersion()
	caps := p.Meta.ClientCapabilities()
	if !mcp.IsModernProtocol(version) || !mcp.IsValidProtocolVersion(version) ||
		r.Header.Get(mcp.HeaderProtocolVersion) != version || caps == nil || caps.Sampling != nil {
		return false
	}
	if err := mcp.ValidateStandardHeaders(r.Header.Get, version, mcp.MethodToolsCall, msg.Params); err != nil {
		writeError(w, msg.ID, mcp.HEADER_MISMATCH, err.Error(), nil)
		return true
	}
	writeError(w, msg.ID, mcp.MISSING_REQUIRED_CLIENT_CAPABILITY,
		MissingCapabilityTool+" needs the client's sampling capability, which the request did not declare",
		map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}})
	return true
}

// writeError writes a JSON-RPC error answering request id, with HTTP
// status 400 (the status of both codes it is used with in the 2026 era).
func writeError(w http.ResponseWriter, id json.RawMessage, code int, msg string, data any) {
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "id": id, "error": e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(append(b, '\n'))
}
