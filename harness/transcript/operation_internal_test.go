package transcript

import (
	"encoding/json"
	"testing"
)

// requests are tools/call request messages of every shape.
var requests = []string{
	`{"jsonrpc":"2.0","id":"tb-4","method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"thought","args":{"thought":"an \"operation\": x","operation":"no"}}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"arguments":{"contextId":"c","operation":"cipher"},"name":"thoughtbox_gateway"}}`,
	`{"method":"tools/call","params":{"name":"sequentialthinking","arguments":{"thought":"t"}}}`,
	`{"method":"tools/call","params":{"name":"thoughtbox_gateway"}}`,
	`{"params":{"name":"a\u0062c","arguments":{"operation":"st\u0061rt_new"}}}`,
	`{}`,
	// Left to encoding/json:
	`{"params":{"Name":"case","arguments":{"operation":"x"}}}`,
	`{"params":{"name":"x","arguments":{"OPERATION":"case"}}}`,
	`{"params":{"name":"first","name":"last","arguments":{"operation":"x"}}}`,
	`{"params":{"name":5,"arguments":{"operation":"typed"}}}`,
	`{"params":{"name":"x","arguments":null}}`,
	`{"params":null}`,
	`{"par\u0061ms":{"name":"escaped"}}`,
	`{"params":{"name":"\ud800","arguments":{"operation":"x"}}}`,
	`{"params":{"name":"x","arguments":{"operation":["not a string"]}}}`,
	`[1]`,
}

// TestOperationReadsWhatEncodingJSONReads names the operation of every
// request in one pass and compares with encoding/json's reading, and checks
// that the plain requests are read in that pass.
func TestOperationReadsWhatEncodingJSONReads(t *testing.T) {
	for i, r := range requests {
		checkOperation(t, r)
		if _, _, ok := scanOperation([]byte(r)); (i < 6) != ok {
			t.Errorf("%s: read in one pass %v, want %v", r, ok, i < 6)
		}
	}
}

// FuzzOperation: whatever the request, Operation names what encoding/json
// reads.
func FuzzOperation(f *testing.F) {
	for _, r := range requests {
		f.Add(r)
	}
	f.Fuzz(func(t *testing.T, r string) {
		if json.Valid([]byte(r)) { // a recorded request was encoded by mcp-go
			checkOperation(t, r)
		}
	})
}

func checkOperation(t *testing.T, r string) {
	t.Helper()
	if got, want := Operation("tools/call", json.RawMessage(r)), operationJSON(json.RawMessage(r)); got != want {
		t.Errorf("%s: Operation names %q, encoding/json reads %q", r, got, want)
	}
}
