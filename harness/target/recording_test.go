package target

import (
	"encoding/json"
	"reflect"
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

// One decode gives the result and the transcript's block summaries: unknown
// types are flagged, a resource's URI is read from the resource, and a
// block that is not an object fails the result but is still summarised.
func TestToolResultsAreDecodedOnceForBoth(t *testing.T) {
	result := json.RawMessage(`{"content":[{"type":"text","text":"hi"},{"type":"hologram","data":"zz"},{"type":"resource","resource":{"uri":"thoughtbox://x","text":"t"}}],"isError":true}`)
	res, blocks, err := decodeToolResult(result, true)
	if err != nil || !res.IsError || len(res.Blocks) != 3 || res.Text() != "hi" || res.Blocks[2].URI != "thoughtbox://x" || res.Blocks[2].Text != "t" {
		t.Fatalf("result %+v, %v", res, err)
	}
	if len(blocks) != 3 || blocks[0].Unknown || !blocks[1].Unknown || blocks[1].Type != "hologram" ||
		blocks[2].URI != "thoughtbox://x" || blocks[0].Bytes != len(`{"type":"text","text":"hi"}`) {
		t.Errorf("block infos %+v", blocks)
	}
	if string(res.Blocks[1].Raw) != `{"type":"hologram","data":"zz"}` {
		t.Errorf("raw of the unknown block: %s", res.Blocks[1].Raw)
	}

	// Without raw JSON: the same result and summaries, less the raw blocks
	// and the sizes.
	lean, leanBlocks, err := decodeToolResult(result, false)
	for i := range res.Blocks {
		res.Blocks[i].Raw = nil
		blocks[i].Bytes = 0
	}
	if err != nil || !reflect.DeepEqual(lean, res) || !reflect.DeepEqual(leanBlocks, blocks) {
		t.Errorf("without raw JSON:\n%+v %+v %v\nwant\n%+v %+v", lean, leanBlocks, err, res, blocks)
	}

	for _, withRaw := range []bool{true, false} {
		_, blocks, err = decodeToolResult(json.RawMessage(`{"content":[7,{"type":"text","text":"after"}]}`), withRaw)
		if err == nil || len(blocks) != 2 || !blocks[0].Unknown || blocks[1].Unknown {
			t.Errorf("a block that is not an object: %v, %+v", err, blocks)
		}
		if _, blocks, err = decodeToolResult(json.RawMessage(`[1]`), withRaw); err == nil || blocks != nil {
			t.Errorf("a result that is not an object: %v, %+v", err, blocks)
		}
	}
}
