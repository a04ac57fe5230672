package transcript_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

func TestUnknownBlocksAreKeptAndFlagged(t *testing.T) {
	result := json.RawMessage(`{"content":[{"type":"text","text":"hi"},{"type":"hologram","data":"zz"},{"type":"resource","resource":{"uri":"thoughtbox://x","text":"t"}}]}`)
	blocks, unknown := transcript.ResultBlocks(result)
	if len(blocks) != 3 || len(unknown) != 1 || unknown[0] != "hologram" {
		t.Fatalf("blocks %+v unknown %v", blocks, unknown)
	}
	if !blocks[1].Unknown || blocks[2].URI != "thoughtbox://x" || blocks[0].Bytes == 0 {
		t.Errorf("block infos %+v", blocks)
	}
}

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
