package target

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

var resultCases = []string{
	`{"content":[{"type":"text","text":"{\n  \"thoughtNumber\": 1,\n  \"sessionId\": \"s\"\n}"}]}`,
	`{"content":[{"type":"text","text":"a"},{"type":"resource","resource":{"uri":"thoughtbox://x","mimeType":"text/markdown","text":"# T\n\n| a | b |"}}],"isError":false}`,
	`{"isError":true,"content":[{"type":"text","text":"Error: \u003cno\u003e"}]}`,
	`{"content":[],"structuredContent":{"a":1},"resultType":"complete"}`,
	`{"content":null,"isError":null}`,
	`{"content":[null,{"type":"image","data":"AAAA","mimeType":"image/png","annotations":{"audience":["user"]}}]}`,
	`{"resultType":"input_required","inputRequests":{"r":{"method":"elicitation/create"}},"requestState":"abc","content":[]}`,
	`{"Content":[{"type":"text","text":"case"}]}`,
	`{"content":[{"Type":"text","text":"case"}]}`,
	`{"content":[{"type":"text","text":"x"}],"content":[]}`,
	`{"content":[{"type":"text","text":"a","text":"b"}]}`,
	`{"isError":"yes","content":[]}`,
	`{"content":[{"type":5}]}`,
	`{"content":["text"]}`,
	`{"content":{"type":"text"}}`,
	`{"cont\u0065nt":[{"type":"text","text":"escaped name"}]}`,
	`{"content":[{"type":"text","text":"\ud834\udd1e"}]}`,
	"{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}",
	`{"_meta":{"content":[1]},"content":[{"type":"text","text":"meta first"}]}`,
	` { "content" : [ { "type" : "text" , "text" : "spaces" } ] } `,
	`[]`, `null`, `"x"`,
}

// checkScan compares scanToolResult with encoding/json on raw: whenever
// the scanner reads it, encoding/json reads it too, the same way, blocks
// and their raw JSON; and decodeToolResult gives what its long way gives.
func checkScan(t *testing.T, raw []byte) {
	t.Helper()
	got, raws, ok := scanToolResult(raw)
	if !ok {
		return
	}
	var want plainResult
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("scanned %s, but encoding/json refuses it: %v", raw, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("scanned %s as\n%+v\nencoding/json reads\n%+v", raw, got, want)
	}
	var wantRaws struct {
		Content []json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &wantRaws); err != nil || !reflect.DeepEqual(emptyAsNil(raws), emptyAsNil(wantRaws.Content)) {
		t.Fatalf("scanned the blocks of %s as %q, encoding/json as %q (%v)", raw, raws, wantRaws.Content, err)
	}
	for _, withRaw := range []bool{false, true} {
		res, infos, err := decodeToolResult(raw, withRaw)
		slowRes, slowInfos, slowErr := decodeToolResultJSON(raw, withRaw)
		if !withRaw {
			for i := range slowInfos {
				slowInfos[i].Bytes = 0 // a transcript that keeps no file counts no sizes
			}
		}
		res.Blocks, slowRes.Blocks = emptyAsNil(res.Blocks), emptyAsNil(slowRes.Blocks)
		if (err == nil) != (slowErr == nil) || !reflect.DeepEqual(res, slowRes) || !reflect.DeepEqual(emptyAsNil(infos), emptyAsNil(slowInfos)) {
			t.Fatalf("decodeToolResult(%s, withRaw %v) gave\n%+v %+v %v\nthe long way\n%+v %+v %v", raw, withRaw, res, infos, err, slowRes, slowInfos, slowErr)
		}
	}
}

// emptyAsNil is s, or nil when s is empty: where the two ways differ only
// in that, they read the same.
func emptyAsNil[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestScanToolResultAgreesWithEncodingJSON checks the scanner on results
// of every shape a server sends, and on those it leaves to encoding/json.
func TestScanToolResultAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range resultCases {
		checkScan(t, []byte(c))
	}
	for _, c := range resultCases[:7] {
		if _, _, ok := scanToolResult([]byte(c)); !ok {
			t.Errorf("the scanner left a plain result to encoding/json: %s", c)
		}
	}
	for _, c := range resultCases[7:18] {
		if _, _, ok := scanToolResult([]byte(c)); ok {
			t.Errorf("the scanner read what encoding/json reads otherwise or refuses: %s", c)
		}
	}
}

// FuzzScanToolResult: whatever the scanner reads, encoding/json reads the
// same way.
func FuzzScanToolResult(f *testing.F) {
	for _, c := range resultCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if json.Valid(raw) { // a result comes from a decoded response
			checkScan(t, raw)
		}
	})
}

// BenchmarkDecodeLargeResult decodes a result the size of the cipher's
// answer (15 KB of Markdown, its quotes and line ends escaped), as a load
// run does for every call.
func BenchmarkDecodeLargeResult(b *testing.B) {
	text := strings.Repeat("| `thought` | \"a step\" | one line\n", 420)
	block, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	raw := []byte(`{"content":[` + string(block) + `]}`)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, _, err := decodeToolResult(raw, false); err != nil {
			b.Fatal(err)
		}
	}
}
