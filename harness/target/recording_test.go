package target

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// operationOf names the operation exactly as transcript.Operation reads it
// from the encoded request, or declines.
func TestOperationOfMatchesTheEncodedRequest(t *testing.T) {
	for _, params := range []any{
		map[string]any{"name": "thoughtbox_gateway", "arguments": map[string]any{"operation": "thought", "args": map[string]any{"x": 1}}},
		map[string]any{"name": "thoughtbox_gateway", "arguments": map[string]any{"args": 1}},
		map[string]any{"name": "thoughtbox_gateway"},
		map[string]any{"name": "t", "arguments": nil},
		map[string]any{"name": "t", "arguments": map[string]any{"operation": nil}},
		map[string]any{"name": "t", "arguments": map[string]any{"operation": 7}},
		map[string]any{"name": "t", "arguments": "text"},
		map[string]any{"name": 3},
		json.RawMessage(`{"name":"t","arguments":{"operation":"x"}}`),
		nil,
	} {
		req := transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId("a"), Method: "tools/call", Params: params}
		want := transcript.Operation(req.Method, marshal(req))
		got, ok := operationOf(req)
		if ok && got != want {
			t.Errorf("%v: operationOf %q, the encoded request %q", params, got, want)
		}
		b, _ := json.Marshal(params)
		t.Logf("%s: %q (read: %v)", b, want, ok)
	}
	if op, ok := operationOf(transport.JSONRPCRequest{Method: "tools/list"}); !ok || op != "" {
		t.Errorf("tools/list: %q %v", op, ok)
	}
	if _, ok := operationOf(transport.JSONRPCRequest{Method: "tools/call", Params: map[string]any{"name": "t", "arguments": map[string]any{"operation": "x"}}}); !ok {
		t.Error("the harness's own shape was not read")
	}
}
