package transcript_test

import (
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// TestRoundTripsAddUp checks that the round trips of answered and
// unanswered requests are added up by method and tool call, bypass traffic
// left out, and that Merge adds them.
func TestRoundTripsAddUp(t *testing.T) {
	r := transcript.Discard()
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"thought"}}}`
	r.Add(transcript.Entry{Dir: transcript.Recv, Kind: transcript.Response, Method: "tools/call", Operation: "thoughtbox_gateway/thought", RoundTrip: 0.25})
	r.Add(transcript.Entry{Dir: transcript.Recv, Kind: transcript.TransportErr, Method: "tools/call", Message: []byte(call), RoundTrip: 0.5})
	r.Add(transcript.Entry{Dir: transcript.Recv, Kind: transcript.Response, Method: "ping", RoundTrip: 0.125})
	r.Add(transcript.Entry{Dir: transcript.Recv, Kind: transcript.Response, Method: "ping", RoundTrip: 4, Bypass: true})
	c := r.Counts()
	if c.Seconds["tools/call"] != 0.75 || c.Seconds["ping"] != 0.125 || c.OperationSeconds["thoughtbox_gateway/thought"] != 0.75 {
		t.Fatalf("seconds %v, operation seconds %v", c.Seconds, c.OperationSeconds)
	}
	c.Merge(r.Counts())
	if c.Seconds["tools/call"] != 1.5 || c.OperationSeconds["thoughtbox_gateway/thought"] != 1.5 || len(c.Seconds) != 2 {
		t.Fatalf("merged: seconds %v, operation seconds %v", c.Seconds, c.OperationSeconds)
	}
}
