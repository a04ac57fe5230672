package transcript_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

func TestRecorderWritesEveryEntryAndCounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "t.jsonl")
	r, err := transcript.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	r.Add(transcript.Entry{Dir: transcript.Send, Kind: transcript.Request, Method: "tools/call",
		Message: json.RawMessage(`{"params":{"name":"thoughtbox_gateway","arguments":{"operation":"thought"}}}`)})
	r.Add(transcript.Entry{Dir: transcript.Send, Kind: transcript.Request, Method: "ping", Message: json.RawMessage(`{}`)})
	r.Add(transcript.Entry{Dir: transcript.Recv, Kind: transcript.Response, Method: "ping", Message: json.RawMessage(`{}`)})
	r.Warn("block of unknown type %q", "hologram")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	c := r.Counts()
	if c.Methods["tools/call"] != 1 || c.Methods["ping"] != 1 || c.Operations["thoughtbox_gateway/thought"] != 1 {
		t.Errorf("counts %+v", c)
	}
	if w := r.Warnings(); len(w) != 1 || w[0] != `block of unknown type "hologram"` {
		t.Errorf("warnings %v", w)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e transcript.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Time == "" {
			t.Errorf("line %d: %v %q", lines+1, err, sc.Text())
		}
		lines++
	}
	if lines != 4 {
		t.Errorf("%d lines, want 4", lines)
	}
}

// TestUnansweredRequestsAreNotCounted checks that a request lost to a
// transport failure leaves the counts, as the sidecar never counts it.
func TestUnansweredRequestsAreNotCounted(t *testing.T) {
	r := transcript.Discard()
	call := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"thought"}}}`)
	for i := range 2 {
		r.Add(transcript.Entry{Dir: transcript.Send, Kind: transcript.Request, Method: "tools/call", ID: i, Message: call})
	}
	r.Add(transcript.Entry{Dir: transcript.Recv, Kind: transcript.Response, Method: "tools/call", ID: 0, Message: json.RawMessage(`{}`)})
	r.Add(transcript.Entry{Dir: transcript.Recv, Kind: transcript.TransportErr, Method: "tools/call", ID: 1, Message: call, Text: "EOF"})
	c := r.Counts()
	if c.Methods["tools/call"] != 1 || c.Operations["thoughtbox_gateway/thought"] != 1 ||
		c.UnansweredMethods["tools/call"] != 1 || c.UnansweredOperations["thoughtbox_gateway/thought"] != 1 {
		t.Errorf("counts %+v", c)
	}
}

// TestAnswersAreCountedByOutcome checks that each answer is counted by its
// method, tool and operation and its outcome: a result, a tool error, a
// JSON-RPC error, or a status given by whoever recorded it.
func TestAnswersAreCountedByOutcome(t *testing.T) {
	r := transcript.Discard()
	call := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"cipher"}}}`)
	for _, answer := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}`,
	} {
		r.Add(transcript.Entry{Dir: transcript.Send, Kind: transcript.Request, Method: "tools/call", Message: call})
		r.Add(transcript.Entry{Dir: transcript.Recv, Kind: transcript.Response, Method: "tools/call",
			Operation: transcript.Operation("tools/call", call), Message: json.RawMessage(answer)})
	}
	r.Add(transcript.Entry{Dir: transcript.Send, Kind: transcript.Request, Method: "ping"})
	r.Add(transcript.Entry{Dir: transcript.Recv, Kind: transcript.Response, Method: "ping", Status: outcome.Error})
	c := r.Counts()
	want := map[string]int{outcome.OK: 1, outcome.ToolError: 1, outcome.Error: 1}
	for _, got := range []map[string]int{c.Statuses["tools/call"], c.OperationStatuses["thoughtbox_gateway/cipher"]} {
		if len(got) != len(want) || got["ok"] != 1 || got["tool_error"] != 1 || got["error"] != 1 {
			t.Errorf("outcomes %v, want %v", got, want)
		}
	}
	if c.Statuses["ping"]["error"] != 1 || c.Methods["ping"] != 1 {
		t.Errorf("ping counted %v", c)
	}
	var merged transcript.Counts
	merged.Merge(c)
	merged.Merge(c)
	if merged.OperationStatuses["thoughtbox_gateway/cipher"]["tool_error"] != 2 {
		t.Errorf("merged %v", merged.OperationStatuses)
	}
}
