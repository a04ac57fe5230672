package sidecar

import (
	"encoding/json"
	"fmt"
	"testing"
)

// referenceParse classifies a message with encoding/json, the way the
// scanner must.
func referenceParse(data []byte) (message, bool) {
	var w struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &w) != nil {
		return message{}, false
	}
	m := message{id: idKey(w.ID)}
	switch {
	case w.Method != nil && *w.Method != "":
		m.method = methodLabel(*w.Method)
		m.kind = kindRequest
		if m.id == "" {
			m.kind = kindNotification
		}
	case w.Result != nil || (w.Error != nil && string(w.Error) != "null"):
		m.kind = kindResponse
	}
	return m, true
}

var scanCases = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"operation":"x"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	` { "id" : "a\"b" , "result" : { "isError" : true } } `,
	`{"id":null,"error":{"code":-32700,"message":"x"}}`,
	`{"id":2,"error":null,"result":[1,{"a":"}"}]}`,
	`{"method":"ping","id":1,"method":"tools/list"}`,
	`{"method":"","id":1}`,
	`{"method":"tools\/list","id":1}`,
	`{"id":[1],"method":"x"}`,
	`{"id":1.5e3,"result":{}}`,
	`{}`,
	`[]`,
	`"str"`,
	`{"a":tru}`,
	`{"id":1,"method":"ping"`,
	`{"id":1,,"method":"ping"}`,
}

func TestScannerAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range scanCases {
		ref, ok := referenceParse([]byte(c))
		got := parseMessage([]byte(c))
		if !ok {
			if got.kind != kindInvalid && got.kind != kindNotification && got.kind != kindRequest && got.kind != kindResponse {
				t.Errorf("%s: kind %v", c, got.kind)
			}
			continue
		}
		if got.kind != ref.kind || got.method != ref.method || got.id != ref.id {
			t.Errorf("%s:\nscanner  %+v\nreference %+v", c, got, ref)
		}
	}
}

func FuzzScanner(f *testing.F) {
	for _, c := range scanCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := parseMessage(data) // must not panic
		ref, ok := referenceParse(data)
		if ok && (got.kind != ref.kind || got.method != ref.method || got.id != ref.id) {
			t.Errorf("%q:\nscanner  %+v\nreference %+v", data, got, ref)
		}
		_, _ = parseBody(data)
	})
}

func TestMemberAndHelpers(t *testing.T) {
	obj := []byte(`{"name":"thoughtbox_gateway","arguments":{"operation":"thought","args":{"operation":"nested"}},"x":[1,2]}`)
	if got := string(member(member(obj, "arguments"), "operation")); got != `"thought"` {
		t.Errorf("operation %s", got)
	}
	if member(obj, "missing") != nil {
		t.Error("missing member found")
	}
	if b, ok := stringValue([]byte(`"a\u0062c"`)); !ok || string(b) != "abc" {
		t.Errorf("escaped string %q %v", b, ok)
	}
	if _, ok := stringValue([]byte(`12`)); ok {
		t.Error("number taken for a string")
	}
	if code, ok := errorCode([]byte(`{"code":-32601,"message":"m"}`)); !ok || code != -32601 {
		t.Errorf("code %d %v", code, ok)
	}
	msgs, batch := parseBody([]byte(` [{"id":1,"method":"ping"}, {"method":"notifications/initialized"}] `))
	if !batch || len(msgs) != 2 || msgs[0].kind != kindRequest || msgs[1].kind != kindNotification {
		t.Errorf("batch %v %+v", batch, msgs)
	}
	for raw, want := range map[string]string{`1`: "n1", `"1"`: "s1", `null`: "", `"a\"b"`: `sa"b`} {
		if got := idKey([]byte(raw)); got != want {
			t.Errorf("idKey(%s) = %q, want %q", raw, got, want)
		}
	}
	if got := jsonID(idKey([]byte(`"a\"b"`))); got != `"a\"b"` {
		t.Errorf("jsonID round trip %s", got)
	}
}

func TestSSEParser(t *testing.T) {
	stream := "event: message\ndata: {\"a\":1}\n\n: comment\n\nid: 7\r\ndata: line1\r\ndata:line2\r\n\r\ndata: x\rdata: y\r\rdata: " +
		fmt.Sprintf("%0100d", 0) + "\n\ndata: last\n\n"
	want := []string{`{"a":1}`, "line1\nline2", "x\ny", "last"}
	for _, chunk := range []int{1, 2, 3, 7, len(stream)} {
		var got []string
		p := sseParser{max: 50, onData: func(d []byte) { got = append(got, string(d)) }}
		for i := 0; i < len(stream); i += chunk {
			p.feed([]byte(stream[i:min(i+chunk, len(stream))]))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("chunk %d: got %q, want %q (the 100-byte event is over max)", chunk, got, want)
		}
	}
}

func TestVocabulary(t *testing.T) {
	v := newVocabulary()
	v.learn("tools/list", []byte(`{"tools":[
		{"name":"gw","inputSchema":{"properties":{"operation":{"enum":["a","b",3,"bad name"]}}}},
		{"name":"plain","inputSchema":{"properties":{}}},
		{"name":"bad name","inputSchema":{}}]}`))
	for _, c := range []struct{ name, op, tool, wantOp string }{
		{`"gw"`, `"a"`, "gw", "a"},
		{`"gw"`, `"c"`, "gw", Other},
		{`"gw"`, ``, "gw", None},
		{`"gw"`, `3`, "gw", Other},
		{`"plain"`, `"a"`, "plain", None},
		{`"bad name"`, `"a"`, Other, Other},
		{`"nope"`, ``, Other, None},
	} {
		var op []byte
		if c.op != "" {
			op = []byte(c.op)
		}
		tool, gotOp := v.toolLabels([]byte(c.name), op)
		if tool != c.tool || gotOp != c.wantOp {
			t.Errorf("toolLabels(%s, %s) = %s, %s; want %s, %s", c.name, c.op, tool, gotOp, c.tool, c.wantOp)
		}
	}
	var many []string
	for i := range maxTools + 10 {
		many = append(many, fmt.Sprintf(`{"name":"t%d"}`, i))
	}
	v.learn("tools/list", []byte(`{"tools":[`+joinComma(many)+`]}`))
	if n := len(v.snap.Load().tools); n != maxTools {
		t.Errorf("learned %d tools, cap is %d", n, maxTools)
	}
	v.learn("resources/templates/list", []byte(`{"resourceTemplates":[{"uriTemplate":"Thoughtbox://thoughts/{n}"},{"uriTemplate":"nocolon"}]}`))
	if got := v.schemeLabel([]byte(`"thoughtbox://x"`)); got != "thoughtbox" {
		t.Errorf("scheme %s", got)
	}
	if got := v.schemeLabel([]byte(`"file:///home/alice"`)); got != Other {
		t.Errorf("unlearned scheme %s", got)
	}
	v.learn("prompts/list", []byte(`{"prompts":[{"name":"spec-designer"}]}`))
	if v.promptLabel([]byte(`"spec-designer"`)) != "spec-designer" || v.promptLabel([]byte(`"x"`)) != Other {
		t.Error("prompt labels")
	}
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}
