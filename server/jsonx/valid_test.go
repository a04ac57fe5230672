package jsonx_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// validCases are JSON texts and near misses, each judged by encoding/json.
var validCases = []string{
	``, ` `, `{}`, `[]`, ` { } `, `[ ]`, `{"a":1}`, `{"a" : [1, 2.5, -3e+7, 0, -0, 0.0e0, 1E-2, true, false, null, "x"]}`,
	`{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{"a"}`, `{"a":}`, `{"a" 1}`, `{1:2}`, `{"a":1 "b":2}`, `[1 2]`, `[1]]`, `[[1]`, `{"a":1}}`,
	`{"a":[}`, `[{]}`, `{]`, `[}`, `]`, `}`, `"`, `"a`, `"a"`, `"a""b"`, `"\"`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\a"`, `"\u00e9"`,
	`"\u00E9\uD834\uDD1E"`, `"\u00g9"`, `"\u12"`, `"\u123"`, `"\"`, "\"\x1f\"", "\"\x7f\"", "\"\xff\xfe\"", "\"\t\"", "\"a\nb\"",
	`tru`, `true`, `truex`, `true false`, `nul`, `null`, `nulll`, `false`, `fals`, `t`, `n`, `f`,
	`0`, `-`, `-0`, `01`, `-01`, `1.`, `.1`, `1.e5`, `1e`, `1e+`, `1e-5`, `+1`, `1x`, `1.5.5`, `0x10`, `1_000`, `Infinity`, `NaN`,
	"\n\r\t 1 \n", "\v1", "\f1", "1\x00", "[1]\x00", `{"a":{"b":{"c":[[[]]]}}}`, `{"":""}`, `{"a":1,"a":2}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"thought","args":{"thought":"a <b> & \"c\" \u2028 é","nextThoughtNeeded":true}}}}`,
}

func TestValidJudgesAsEncodingJSON(t *testing.T) {
	for _, c := range validCases {
		if got, want := jsonx.Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", c, got, want)
		}
	}
	// Every prefix and every one-byte change of a request, at every offset
	// (the eight-byte steps of strings meet each byte at each position).
	req := validCases[len(validCases)-1]
	for i := 0; i <= len(req); i++ {
		if got, want := jsonx.Valid([]byte(req[:i])), json.Valid([]byte(req[:i])); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", req[:i], got, want)
		}
	}
	for i := 0; i < len(req); i++ {
		for _, b := range []byte{0, 0x1f, ' ', '"', '\\', ',', ':', '{', '}', '[', ']', 'u', '0', 0x80, 0xff} {
			m := []byte(req)
			m[i] = b
			if got, want := jsonx.Valid(m), json.Valid(m); got != want {
				t.Errorf("Valid(%q) = %v, encoding/json says %v", m, got, want)
			}
		}
	}
}

// Nesting: 10,000 open arrays or objects are valid, one more is not.
func TestValidNestingLimit(t *testing.T) {
	for _, depth := range []int{9999, 10000, 10001} {
		for _, doc := range []string{
			strings.Repeat("[", depth) + strings.Repeat("]", depth),
			strings.Repeat(`{"a":`, depth-1) + `{}` + strings.Repeat("}", depth-1),
			strings.Repeat("[", depth-1) + `{}` + strings.Repeat("]", depth-1),
		} {
			if got, want := jsonx.Valid([]byte(doc)), json.Valid([]byte(doc)); got != want {
				t.Errorf("depth %d (%.12s…): Valid %v, encoding/json %v", depth, doc, got, want)
			}
		}
	}
}

// Random texts built from JSON's pieces, valid or nearly so.
func TestValidRandomTexts(t *testing.T) {
	pieces := []string{"{", "}", "[", "]", ",", ":", " ", `"`, `\`, `"a"`, `"\u00e9"`, `\u`, "1", "-", ".", "e", "0", "true", "null", "\x01", "é", "\xff", `"k":`, "2.5e-3"}
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 50000; n++ {
		var b strings.Builder
		for k := r.IntN(12); k >= 0; k-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		if got, want := jsonx.Valid([]byte(b.String())), json.Valid([]byte(b.String())); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", b.String(), got, want)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := jsonx.Valid(data), json.Valid(data); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", data, got, want)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	req := []byte(validCases[len(validCases)-1])
	long := []byte(`{"text":[` + strings.Repeat(`"{\n  \"thoughtNumber\": 1,\n  \"sessionId\": \"abc\"\n}", `, 200) + `"x"]}`)
	for _, c := range []struct {
		name string
		doc  []byte
	}{{"request", req}, {"escaped-15KB", long}} {
		if !json.Valid(c.doc) {
			b.Fatalf("%s: not valid JSON", c.name)
		}
		b.Run(c.name+"/jsonx", func(b *testing.B) {
			b.SetBytes(int64(len(c.doc)))
			for b.Loop() {
				jsonx.Valid(c.doc)
			}
		})
		b.Run(c.name+"/encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(c.doc)))
			for b.Loop() {
				json.Valid(c.doc)
			}
		})
	}
}
