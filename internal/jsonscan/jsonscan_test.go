package jsonscan

import (
	"encoding/json"
	"testing"
)

var unquoteCases = []string{
	`""`, `"plain"`, `"a\"b"`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"caf\u00e9 \u003cb\u003e"`, `"\u2028"`,
	`"line one\nline \"two\"\n| a | b |"`, `"é ✓ 𝄞"`, `"\ud834\udd1e"`, `"\ud800"`, `"\udc00x"`, `"tab	raw"`,
	"\"\xff\"", `"\x"`, `"\u12"`, `"\u12g4"`, `"ends with \\"`, `"a\\"`, `123`, `null`, `"`, `x"`,
}

// TestUnquoteAgreesWithEncodingJSON checks Unquote on escapes, runes and
// what it leaves to encoding/json (bytes that are not UTF-8, a surrogate,
// more than one string).
func TestUnquoteAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range unquoteCases {
		checkUnquote(t, []byte(c))
	}
	for _, c := range []string{`"\ud834\udd1e"`, "\"\xff\"", `123`, `"a"b"`, `"a\"b"c"`} {
		if _, ok := Unquote([]byte(c)); ok {
			t.Errorf("Unquote(%s) decoded what it leaves to encoding/json", c)
		}
	}
	if s, ok := Unquote([]byte(`"a\"b\\n\nc\u00e9"`)); !ok || s != "a\"b\\n\nc\u00e9" {
		t.Errorf("Unquote = %q, %v", s, ok)
	}
}

func checkUnquote(t *testing.T, v []byte) {
	t.Helper()
	if !json.Valid(v) {
		return // Unquote reads strings of JSON documents
	}
	got, ok := Unquote(v)
	if !ok {
		return
	}
	var want string
	if err := json.Unmarshal(v, &want); err != nil {
		t.Fatalf("Unquote(%q) = %q, but encoding/json refuses it: %v", v, got, err)
	}
	if got != want {
		t.Fatalf("Unquote(%q) = %q, encoding/json gives %q", v, got, want)
	}
}

// FuzzUnquote: whatever Unquote decodes, encoding/json decodes the same.
func FuzzUnquote(f *testing.F) {
	for _, c := range unquoteCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		checkUnquote(t, v)
		checkUnquote(t, append(append([]byte{'"'}, v...), '"'))
	})
}

// TestSkipStringEscapes: a quote after an even run of backslashes ends a
// string, after an odd run it is part of it; an unterminated string is
// no string.
func TestSkipStringEscapes(t *testing.T) {
	for in, want := range map[string]int{
		`"" x`:               2,
		`"abc",`:             5,
		`"a\"b`:              -1,
		`"a\\"b`:             5,
		`"a\\\"b"c`:          8,
		`"{\"k\": \"v\"}" x`: 16,
		`"\\\\" x`:           6,
		`"abc`:               -1,
		`"abc\"`:             -1,
		`"abc\`:              -1,
		`"`:                  -1,
	} {
		end, ok := SkipString([]byte(in), 0)
		if want < 0 {
			if ok {
				t.Errorf("SkipString(%s) = %d, want no string", in, end)
			}
			continue
		}
		if !ok || end != want {
			t.Errorf("SkipString(%s) = %d %v, want %d", in, end, ok, want)
		}
		var s string
		if err := json.Unmarshal([]byte(in[:end]), &s); err != nil {
			t.Errorf("%s: the string found is not one: %v", in[:end], err)
		}
	}
}

// TestEachNamedLeavesToEncodingJSONWhatItReadsOtherwise reads the named
// members and reports false where encoding/json would read a member the
// scan skips or reads once (a name in another case or escaped, a member
// given twice), where read refuses a value, and on what is not an object.
func TestEachNamedLeavesToEncodingJSONWhatItReadsOtherwise(t *testing.T) {
	for _, c := range []struct {
		obj  string
		want string // the members read, name=value, then ok or not
	}{
		{`{"a":1,"b":"x","c":[1]}`, "a=1 b=\"x\" ok"},
		{` { "b" : { "a" : 2 } , "z" : null } `, "b={ \"a\" : 2 } ok"},
		{`{}`, "ok"},
		{`{"A":1}`, "not"},
		{`{"\u0061":1}`, "not"},
		{`{"a":1,"a":2}`, "a=1 not"},
		{`{"a":"refused"}`, "a=\"refused\" not"},
		{`[{"a":1}]`, "not"},
		{`{"a":1`, "a=1 not"},
	} {
		got := ""
		ok := EachNamed([]byte(c.obj), func(name string, v []byte) bool {
			got += name + "=" + string(v) + " "
			return string(v) != `"refused"`
		}, "a", "b")
		if ok {
			got += "ok"
		} else {
			got += "not"
		}
		if got != c.want {
			t.Errorf("%s: read %q, want %q", c.obj, got, c.want)
		}
	}
}
