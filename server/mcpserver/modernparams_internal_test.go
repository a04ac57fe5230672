package mcpserver

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// referenceParams is what checkModernRequest read before modernParams:
// encoding/json into the struct, and mcp.Meta's accessor.
func referenceParams(params []byte) (version, name string) {
	var p struct {
		Meta *mcp.Meta `json:"_meta"`
		Name string    `json:"name"`
	}
	_ = json.Unmarshal(params, &p)
	return p.Meta.ProtocolVersion(), p.Name
}

func checkAgainstReference(t *testing.T, params string) {
	t.Helper()
	if !json.Valid([]byte(params)) {
		return // the request is checked whole before: params is valid
	}
	v, n := modernParams([]byte(params))
	rv, rn := referenceParams([]byte(params))
	if v != rv || n != rn {
		t.Errorf("%s: version %q, name %q; encoding/json: %q, %q", params, v, n, rv, rn)
	}
}

const pv = `"io.modelcontextprotocol/protocolVersion"`

var modernParamsCases = []string{
	`{"name":"thoughtbox_gateway","arguments":{"operation":"thought","args":{"thought":"a \"quoted\" \\ text"}},"_meta":{` + pv + `:"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"}}}`,
	`{"_meta":{` + pv + `:"2026-07-28"},"name":"thoughtbox_gateway"}`,
	`{}`, `[]`, `null`, `"s"`, `12`,
	`{"name":"t"}`,
	`{"_meta":null,"name":"t"}`,
	`{"_meta":"2026-07-28","name":"t"}`,
	`{"name":"t","_meta":[1]}`,
	`{"_meta":{` + pv + `:5},"name":"t"}`,
	`{"_meta":{` + pv + `:null},"name":"t"}`,
	`{"_meta":{` + pv + `:{"a":1}},"name":"t"}`,
	`{"_meta":{` + pv + `:"a",` + pv + `:"b"},"name":"t"}`,                           // the last wins
	`{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"},"name":"t"}`, // an escaped key
	`{"_meta":{"IO.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"t"}`,  // a map's keys are exact
	`{"_meta":{` + pv + `:"2026-07-28"},"name":7}`,
	`{"_meta":{` + pv + `:"2026-07-28"},"name":null}`,
	`{"_meta":{` + pv + `:"2026-07-28"},"name":["t"]}`,
	`{"_meta":{` + pv + `:"2026-07-28"},"Name":"t"}`,                          // encoding/json folds case
	`{"_META":{` + pv + `:"2026-07-28"},"name":"t"}`,                          // so does this
	`{"_meta":{` + pv + `:"2026-07-28"},"name":"a","name":"b"}`,               // given twice
	`{"_meta":{` + pv + `:"x"},"_meta":{` + pv + `:"2026-07-28"},"name":"t"}`, // given twice
	`{"_meta":{` + pv + `:"2026-07-28"},"n\u0061me":"t"}`,                     // an escaped name
	`{"_meta":{` + pv + `:"2026\u002d07-28"},"name":"t\u00e9\ud83d\ude00"}`,   // escapes in the values
	`{"_meta":{` + pv + `:"2026-07-28"},"name":"\ud800"}`,                     // a lone surrogate
	"{\"_meta\":{" + pv + ":\"2026-07-28\"},\"name\":\"bad \xff utf-8\"}",
	"{\"_meta\":{" + pv + ":\"bad \xfe\"},\"name\":\"t\"}",
	` { "_meta" : { ` + pv + ` : "2026-07-28" } , "name" : "t" } `,
	`{"_meta":{"progressToken":1,` + pv + `:"2026-07-28"},"name":"t"}`,
}

// modernParams reads params as encoding/json does, on the cases above, on
// every one-byte change of them that leaves them valid, and on random
// combinations of their parts.
func TestModernParamsReadsAsEncodingJSON(t *testing.T) {
	for _, c := range modernParamsCases {
		checkAgainstReference(t, c)
	}
	alphabet := []byte(`{}[]":,\ nN_aAmMeE0u12-/` + "\xff")
	for _, c := range modernParamsCases {
		for i := range len(c) {
			for _, b := range alphabet {
				m := []byte(c)
				m[i] = b
				checkAgainstReference(t, string(m))
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	keys := []string{`"_meta"`, `"name"`, `"Name"`, `"arguments"`, pv, `"x"`}
	values := []string{`"t"`, `"2026-07-28"`, `null`, `1`, `[]`, `{}`, `"\u0041"`, `{` + pv + `:"2026-07-28"}`, `{` + pv + `:"v",` + pv + `:2}`}
	for range 20000 {
		var b strings.Builder
		b.WriteByte('{')
		for j := range r.IntN(4) {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(keys[r.IntN(len(keys))] + ":" + values[r.IntN(len(values))])
		}
		b.WriteByte('}')
		checkAgainstReference(t, b.String())
	}
}

func FuzzModernParams(f *testing.F) {
	for _, c := range modernParamsCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, params string) { checkAgainstReference(t, params) })
}

func BenchmarkModernParams(b *testing.B) {
	params := []byte(`{"name":"thoughtbox_gateway","arguments":{"operation":"thought","args":{"thought":"` + strings.Repeat("a thought ", 60) + `","thoughtNumber":3,"totalThoughts":8,"nextThoughtNeeded":true}},"_meta":{` + pv + `:"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"tbbench","version":"1"}}}`)
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			modernParams(params)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			referenceParams(params)
		}
	})
}
