package jsonx_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

func TestPretty(t *testing.T) {
	type inner struct {
		B []int `json:"b"`
	}
	got := jsonx.PrettyString(struct {
		Z string         `json:"z"`
		A inner          `json:"a"`
		E []string       `json:"e"`
		M map[string]any `json:"m"`
		N *int           `json:"n"`
	}{Z: "<&>", A: inner{B: []int{1, 2}}, E: []string{}, M: map[string]any{}})
	want := "{\n  \"z\": \"<&>\",\n  \"a\": {\n    \"b\": [\n      1,\n      2\n    ]\n  },\n  \"e\": [],\n  \"m\": {},\n  \"n\": null\n}"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestObjectKeepsOrder(t *testing.T) {
	o := jsonx.Object{}
	o.Set("zeta", 1)
	o.Set("alpha", []string{"x"})
	if got := jsonx.PrettyString(o); got != "{\n  \"zeta\": 1,\n  \"alpha\": [\n    \"x\"\n  ]\n}" {
		t.Errorf("got %s", got)
	}
	if got := jsonx.Keys([]byte(`{"b":1,"a":{"x":2},"c":[1]}`)); !slices.Equal(got, []string{"b", "a", "c"}) {
		t.Errorf("keys %v", got)
	}
	if jsonx.Keys([]byte(`[1]`)) != nil {
		t.Error("keys of an array")
	}
}

// TestAppendMembers compares the fast member split with encoding/json's
// decoding into a map of raw messages, and checks the cases it leaves to
// encoding/json.
func TestAppendMembers(t *testing.T) {
	for _, raw := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"a" : "x,}]" , "b":{"c":[1,{"d":"\"}"}]},"e":null,"f":true,"g":-1.5e3}`,
		"{\n\t\"thought\": \"line\\nbreak \\\" quote\",\r\n \"n\": [ ] }", `{"a":1,"a":2}`, `{"é":"ü"}`,
	} {
		got, ok := jsonx.AppendMembers(nil, []byte(raw))
		if !ok {
			t.Errorf("%s: not split", raw)
			continue
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		m := map[string]json.RawMessage{}
		for _, mem := range got {
			m[string(mem.Key)] = mem.Value
		}
		if len(m) != len(want) {
			t.Errorf("%s: members %q, want %q", raw, m, want)
		}
		for k, v := range want {
			if string(m[k]) != string(v) {
				t.Errorf("%s: %s = %s, want %s", raw, k, m[k], v)
			}
		}
	}
	for _, raw := range []string{``, `null`, `[1]`, `"x"`, `{"a":}`, `{"a":1`, `{"a\u0062":1}`, "{\"\xff\":1}", `{"a":1} x`} {
		if _, ok := jsonx.AppendMembers(nil, []byte(raw)); ok {
			t.Errorf("%q: split, want left to encoding/json", raw)
		}
	}
}

// TestAppendString compares AppendString with encoding/json for every byte
// and for the runes it treats specially, with and without HTML escaping.
func TestAppendString(t *testing.T) {
	var inputs []string
	for b := range 256 {
		inputs = append(inputs, "a"+string([]byte{byte(b)})+"z")
	}
	inputs = append(inputs, "\u2028\u2029", "é漢🙂", "\xc3", "\xed\xa0\x80", "", `<a href="x">&</a>`)
	for _, s := range inputs {
		checkAppendString(t, s)
	}
}

// appender is a PrettyAppender that renders a list of its own length.
type appender struct{ n int }

func (a appender) AppendPrettyJSON(dst []byte) []byte {
	w := jsonx.Writer{Buf: dst, Indent: true}
	w.Open('[')
	for i := range a.n {
		w.Elem()
		w.Int(i)
	}
	w.Close(']')
	return w.Buf
}

// The pooled renderings give Pretty's bytes whatever the buffer they reuse
// held before: a long rendering, then a short one, by reflection and by
// PrettyAppender (WithPretty and PrettyString alike), and a value
// that cannot be rendered.
func TestWithPrettyRendersAsPretty(t *testing.T) {
	type plain struct {
		S []int `json:"s"`
	}
	long := make([]int, 500)
	for _, v := range []any{plain{S: long}, plain{S: []int{7}}, appender{n: 500}, appender{n: 1}, appender{n: 0}, plain{}} {
		want, err := jsonx.Pretty(v)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			var got []byte
			if err := jsonx.WithPretty(v, func(b []byte) { got = append([]byte(nil), b...) }); err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("WithPretty(%T of %d bytes) = %d bytes, want Pretty's %d:\n%s", v, len(want), len(got), len(want), got)
			}
			if s := jsonx.PrettyString(v); s != string(want) {
				t.Fatalf("PrettyString(%T) = %q, want %q", v, s, want)
			}
		}
	}
	if err := jsonx.WithPretty(func() {}, func([]byte) { t.Error("use called for a value that cannot be rendered") }); err == nil {
		t.Error("WithPretty of a func: no error")
	}
	if got := jsonx.PrettyString(plain{S: []int{1}}); got != "{\n  \"s\": [\n    1\n  ]\n}" {
		t.Errorf("PrettyString after a failed rendering = %q", got)
	}
}

// Reflected renders by reflection even a PrettyAppender (what the appender
// must match), as Pretty renders a type that does not render itself.
func TestReflectedIgnoresAppenders(t *testing.T) {
	if got, err := jsonx.Reflected(appender{n: 2}); err != nil || string(got) != "{}" {
		t.Errorf("Reflected(appender) = %q, %v; want the reflected {}", got, err)
	}
	type plain struct {
		S []int `json:"s"`
	}
	want, _ := jsonx.Pretty(plain{S: []int{1, 2}})
	if got, err := jsonx.Reflected(plain{S: []int{1, 2}}); err != nil || string(got) != string(want) {
		t.Errorf("Reflected = %q, %v; want Pretty's %q", got, err, want)
	}
	if _, err := jsonx.Reflected(func() {}); err == nil {
		t.Error("Reflected of a func: no error")
	}
}
