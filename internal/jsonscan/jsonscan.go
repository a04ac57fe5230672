// Package jsonscan is a small JSON scanner for hot paths: it finds the
// members of an object, the elements of an array and the extent of values
// without decoding or allocating. It assumes its input is JSON; on
// malformed input it reports failure rather than guessing. Everything it
// returns is a sub-slice of its input. The sidecar reads every message
// with it, and the harness the results of its calls.
package jsonscan

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func SkipSpace(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// SkipString returns the index after the string starting at d[i] == '"'.
// It jumps from quote to quote (bytes.IndexByte): a quote after an odd run
// of backslashes is escaped. Answers carry long texts, often JSON with
// its quotes escaped, and this is most of the proxy's reading of them.
func SkipString(d []byte, i int) (int, bool) {
	from := i + 1
	for from <= len(d) {
		q := bytes.IndexByte(d[from:], '"')
		if q < 0 {
			return 0, false
		}
		q += from
		k := q
		for k > from && d[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q + 1, true
		}
		from = q + 1
	}
	return 0, false
}

// SkipValue returns the index after the value starting at d[i].
func SkipValue(d []byte, i int) (int, bool) {
	if i >= len(d) {
		return 0, false
	}
	switch d[i] {
	case '"':
		return SkipString(d, i)
	case '{', '[':
		depth := 0
		for ; i < len(d); i++ {
			switch d[i] {
			case '"':
				j, ok := SkipString(d, i)
				if !ok {
					return 0, false
				}
				i = j - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(d) {
		switch d[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j, j > i
		}
		j++
	}
	return j, j > i
}

// EachMember calls fn with the raw key (quotes stripped, escapes kept) and
// raw value of every member of the object obj. It reports whether obj was
// an object that scanned cleanly.
func EachMember(obj []byte, fn func(key, value []byte)) bool {
	i := SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = SkipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return true
	}
	for i < len(obj) {
		if obj[i] != '"' {
			return false
		}
		end, ok := SkipString(obj, i)
		if !ok {
			return false
		}
		key := obj[i+1 : end-1]
		i = SkipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = SkipSpace(obj, i+1)
		vend, ok := SkipValue(obj, i)
		if !ok {
			return false
		}
		fn(key, obj[i:vend])
		i = SkipSpace(obj, vend)
		if i >= len(obj) {
			return false
		}
		switch obj[i] {
		case ',':
			i = SkipSpace(obj, i+1)
		case '}':
			return true
		default:
			return false
		}
	}
	return false
}

// EachNamed calls read with each member of obj named one of names (each at
// most once), skipping the others, for a caller that reads obj as
// encoding/json would decode it into a struct of those fields. It reports
// false, for the caller to use encoding/json, when obj is not an object,
// read returns false, a member is given twice (encoding/json keeps the
// last), or a member's name is one of names in another case or with an
// escape (which encoding/json would match). At most 64 names.
func EachNamed(obj []byte, read func(name string, v []byte) bool, names ...string) bool {
	ok := true
	var seen uint64
	scanned := EachMember(obj, func(k, v []byte) {
		if !ok {
			return
		}
		i := slices.IndexFunc(names, func(n string) bool { return string(k) == n })
		switch {
		case i >= 0 && seen&(1<<i) == 0:
			seen |= 1 << i
			ok = read(names[i], v)
		case i >= 0:
			ok = false // given twice
		case bytes.IndexByte(k, '\\') >= 0 || slices.ContainsFunc(names, func(n string) bool { return bytes.EqualFold(k, []byte(n)) }):
			ok = false
		}
	})
	return scanned && ok
}

// EachElement calls fn with every element of the array arr. It reports
// whether arr was an array that scanned cleanly.
func EachElement(arr []byte, fn func(value []byte)) bool {
	i := SkipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	i = SkipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return true
	}
	for i < len(arr) {
		end, ok := SkipValue(arr, i)
		if !ok {
			return false
		}
		fn(arr[i:end])
		i = SkipSpace(arr, end)
		if i >= len(arr) {
			return false
		}
		switch arr[i] {
		case ',':
			i = SkipSpace(arr, i+1)
		case ']':
			return true
		default:
			return false
		}
	}
	return false
}

// Unquote decodes the JSON string v (quotes included), a string of a JSON
// document (as SkipString finds it), as encoding/json does. It reports
// false, for the caller to decode v with encoding/json, when v is not one
// string, or has bytes that are not UTF-8 or an escaped surrogate, which
// encoding/json replaces. It does not look for control characters, which
// no JSON document has in a string. Runs without escapes are copied whole.
func Unquote(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	s := v[1 : len(v)-1]
	if !utf8.Valid(s) {
		return "", false
	}
	i := bytes.IndexByte(s, '\\')
	if i < 0 {
		if bytes.IndexByte(s, '"') >= 0 {
			return "", false // more than one string
		}
		return string(s), true
	}
	out := make([]byte, 0, len(s))
	for i >= 0 {
		if bytes.IndexByte(s[:i], '"') >= 0 {
			return "", false
		}
		out = append(out, s[:i]...)
		if i+1 >= len(s) {
			return "", false
		}
		n := 2
		switch c := s[i+1]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(s[i+2:])
			if !ok || utf8.RuneLen(r) < 0 { // a surrogate, alone or in a pair
				return "", false
			}
			out = utf8.AppendRune(out, r)
			n = 6
		default:
			return "", false
		}
		s = s[i+n:]
		i = bytes.IndexByte(s, '\\')
	}
	if bytes.IndexByte(s, '"') >= 0 {
		return "", false
	}
	return string(append(out, s...)), true
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
