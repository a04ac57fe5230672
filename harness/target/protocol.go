package target

import "encoding/json"

// InitializeBody is the JSON text of a 2025-era initialize request with the
// given id, in ProtocolVersion, from a client named client: for the
// requests the harness writes by hand (raw HTTP). The protocol's header
// names are mcp-go's (mcp.HeaderSessionID, mcp.HeaderProtocolVersion).
func InitializeBody(id any, client string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "initialize", "params": map[string]any{
		"protocolVersion": ProtocolVersion, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": client, "version": "1"}}})
	return string(b)
}
