package transcript

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestEncodeEntryTakesACompactMessageAsItIs checks that an entry whose
// message is marked Compact is written byte for byte as json.Marshal writes
// it, and that a message that is not on one line, or an entry whose id is
// not a scalar, still goes through json.Marshal.
func TestEncodeEntryTakesACompactMessageAsItIs(t *testing.T) {
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "result": map[string]any{
		"content": []any{map[string]any{"type": "text", "text": "a <b> & \"c\"\n\"message\":0"}}}})
	entries := []Entry{
		{Time: "t", Session: "s", Dir: Recv, Kind: Response, Method: "tools/call", ID: int64(7), Message: msg,
			Blocks: []BlockInfo{{Type: "text", Bytes: 40}}, Operation: "thoughtbox_gateway/thought", Status: "ok", RoundTrip: 0.25},
		{Time: "t", Kind: Request, Method: `say "message":0`, ID: `tb-"message":0`, Message: msg},
		{Time: "t", Kind: Request, ID: nil, Message: msg},
		{Time: "t", Kind: Request, ID: 1.5, Message: json.RawMessage(`{"a":1}`), Text: "after"},
	}
	for i, e := range entries {
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		e.Compact = true
		got, err := encodeEntry(e)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("entry %d:\n got %s (%v)\nwant %s", i, got, err, want)
		}
	}
	// Not on one line, or an id that is an object: encoding/json compacts
	// and checks the message as before.
	for _, e := range []Entry{
		{Kind: Response, ID: "x", Message: json.RawMessage("{\"a\":\n 1}"), Compact: true},
		{Kind: Response, ID: map[string]any{"message": 0}, Message: json.RawMessage(`{"b":2}`), Compact: true},
	} {
		got, err := encodeEntry(e)
		e.Compact = false
		want, _ := json.Marshal(e)
		if err != nil || !bytes.Equal(got, want) || bytes.IndexByte(got, '\n') >= 0 {
			t.Errorf("got %s (%v), want %s", got, err, want)
		}
	}
}
