package target

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
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

// TestMarshalResponseKeepsTheResultAsRead checks that a response's encoding
// for the transcript holds the same JSON as json.Marshal's, with its result
// as the transport read it when that is on one line, and is json.Marshal's
// own otherwise (a result over several lines, an error answer).
func TestMarshalResponseKeepsTheResultAsRead(t *testing.T) {
	result := json.RawMessage(`{"content":[{"type":"text","text":"<b> & \"c\" \u00e9"}],"isError":false}`)
	resp := &transport.JSONRPCResponse{JSONRPC: "2.0", ID: mcp.NewRequestId("tb-1"), Result: result}
	got := marshalResponse(resp)
	if !bytes.HasSuffix(got, append([]byte(`"result":`), append(result, '}')...)) {
		t.Errorf("the result was not kept as read: %s", got)
	}
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal(marshal(resp), &b) != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("%s holds other JSON than %s", got, marshal(resp))
	}
	for _, r := range []*transport.JSONRPCResponse{
		{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(2)), Result: json.RawMessage("{\n  \"a\": 1\n}")},
		{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(3)), Error: &mcp.JSONRPCErrorDetails{Code: -32602, Message: "bad"}},
	} {
		if got, want := marshalResponse(r), marshal(r); !bytes.Equal(got, want) {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

// answering is a transport that answers every request with one result.
type answering struct {
	transport.Interface
	result json.RawMessage
}

func (a answering) SendRequest(_ context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	return &transport.JSONRPCResponse{JSONRPC: "2.0", ID: req.ID, Result: a.result}, nil
}

func (answering) GetSessionId() string { return "" }

// BenchmarkRecordingACall records a gateway call and its answer (the size of
// the cipher's, 15 KB, or of a thought's), into a transcript file as a
// load run's first user does, or into counts alone as its other users do.
func BenchmarkRecordingACall(b *testing.B) {
	text := strings.Repeat("| `thought` | \"a step\" | one line\n", 420)
	for _, size := range []string{"15KB", "thought"} {
		if size == "thought" {
			text = "{\n  \"thoughtNumber\": 3,\n  \"sessionId\": \"e59a2529-51d9-4170-a9fc-b5aae862347f\"\n}"
		}
		block, _ := json.Marshal(map[string]any{"content": []any{map[string]string{"type": "text", "text": text}}})
		for _, keep := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/keep=%v", size, keep), func(b *testing.B) {
				rec := transcript.Discard()
				if keep {
					var err error
					if rec, err = transcript.Create(filepath.Join(b.TempDir(), "t.jsonl")); err != nil {
						b.Fatal(err)
					}
				}
				r := &recording{inner: answering{result: block}, rec: rec}
				req := transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(1)), Method: "tools/call",
					Params: map[string]any{"name": GatewayTool, "arguments": map[string]any{"operation": "cipher", "args": map[string]any{}}}}
				for b.Loop() {
					if _, _, err := r.call(b.Context(), req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
