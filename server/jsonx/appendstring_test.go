package jsonx_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// checkAppendString fails t unless AppendString writes s as encoding/json
// does, with and without HTML escaping.
func checkAppendString(t *testing.T, s string) {
	t.Helper()
	compact, err := jsonx.Compact(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonx.AppendString(nil, s, false); string(got) != string(compact) {
		t.Fatalf("%q: got %s, want %s", s, got, compact)
	}
	marshal, _ := json.Marshal(s)
	if got := jsonx.AppendString(nil, s, true); string(got) != string(marshal) {
		t.Fatalf("%q with HTML escaping: got %s, want %s", s, got, marshal)
	}
}

// Every byte value at every place of a text long enough to be read eight
// bytes at a time, alone among plain letters and beside another of its
// kind, and characters of several bytes across a word's boundary.
func TestAppendStringAtEveryOffset(t *testing.T) {
	const width = 19
	for b := range 256 {
		for at := range width {
			s := []byte(strings.Repeat("a", width))
			s[at] = byte(b)
			checkAppendString(t, string(s))
			if at+1 < width {
				s[at+1] = byte(b)
				checkAppendString(t, string(s))
			}
		}
	}
	for _, c := range []string{"é", "漢", "🙂", "\u2028", "\u2029", "\xc3", "\xed\xa0\x80", "\xff\xfe"} {
		for at := range 12 {
			checkAppendString(t, strings.Repeat("x", at)+c+strings.Repeat("y", 12))
		}
	}
}

// Random texts drawn mostly from plain letters with a few bytes that need
// an escape, as the texts of thoughts and answers are.
func TestAppendStringOnRandomTexts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	special := []string{`"`, `\`, "\n", "\t", "\x00", "\x1f", "<", ">", "&", "é", "\u2028", "\xc3", "🙂", " "}
	for range 20000 {
		var sb strings.Builder
		for range r.IntN(64) {
			if r.IntN(6) == 0 {
				sb.WriteString(special[r.IntN(len(special))])
			} else {
				sb.WriteByte(byte('a' + r.IntN(26)))
			}
		}
		checkAppendString(t, sb.String())
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain text of some length", `{"a":"<b>"}` + "\n", "é漢🙂\u2028\xc3\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(checkAppendString)
}

// BenchmarkAppendString writes a plain text and a text holding JSON, as a
// thought's text and an answer's text block are.
func BenchmarkAppendString(b *testing.B) {
	plain := strings.Repeat("The reasoning goes on, step by step, to its end. ", 20)
	quoted := strings.Repeat(`{"thoughtNumber": 3, "nextThoughtNeeded": true, "text": "a b c"}`+"\n", 16)
	for _, c := range []struct{ name, s string }{{"plain", plain}, {"json", quoted}} {
		b.Run(c.name, func(b *testing.B) {
			buf := make([]byte, 0, 4*len(c.s))
			b.SetBytes(int64(len(c.s)))
			for b.Loop() {
				buf = jsonx.AppendString(buf[:0], c.s, false)
			}
		})
	}
}
