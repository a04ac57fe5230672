package sidecar

import (
	"bytes"
	"encoding/json"
)

// A small JSON scanner for the hot path: it finds the members of an object
// and the extent of values without decoding or allocating. It assumes the
// input is JSON; on malformed input it reports failure rather than
// guessing. Everything it returns is a sub-slice of its input.

func skipSpace(d []byte, i int) int {
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

// skipString returns the index after the string starting at d[i] == '"'.
// It jumps from quote to quote (bytes.IndexByte): a quote after an odd run
// of backslashes is escaped. Answers carry long texts, often JSON with
// its quotes escaped, and this is most of the proxy's reading of them.
func skipString(d []byte, i int) (int, bool) {
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

// skipValue returns the index after the value starting at d[i].
func skipValue(d []byte, i int) (int, bool) {
	if i >= len(d) {
		return 0, false
	}
	switch d[i] {
	case '"':
		return skipString(d, i)
	case '{', '[':
		depth := 0
		for ; i < len(d); i++ {
			switch d[i] {
			case '"':
				j, ok := skipString(d, i)
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

// eachMember calls fn with the raw key (quotes stripped, escapes kept) and
// raw value of every member of the object obj. It reports whether obj was
// an object that scanned cleanly.
func eachMember(obj []byte, fn func(key, value []byte)) bool {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return true
	}
	for i < len(obj) {
		if obj[i] != '"' {
			return false
		}
		end, ok := skipString(obj, i)
		if !ok {
			return false
		}
		key := obj[i+1 : end-1]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = skipSpace(obj, i+1)
		vend, ok := skipValue(obj, i)
		if !ok {
			return false
		}
		fn(key, obj[i:vend])
		i = skipSpace(obj, vend)
		if i >= len(obj) {
			return false
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return true
		default:
			return false
		}
	}
	return false
}

// member returns the raw value of the member named key (an escape-free
// name) of obj, or nil.
func member(obj []byte, key string) []byte {
	var v []byte
	eachMember(obj, func(k, val []byte) {
		if v == nil && string(k) == key {
			v = val
		}
	})
	return v
}

// stringValue returns the raw bytes of a JSON string value without escapes,
// or decodes it when it has escapes (allocating). ok is false when v is not
// a string.
func stringValue(v []byte) (b []byte, ok bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner, true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

// isNull reports whether v is absent or the literal null.
func isNull(v []byte) bool {
	return len(v) == 0 || string(v) == "null"
}

// eachElement calls fn with every element of the array arr. It reports
// whether arr was an array that scanned cleanly.
func eachElement(arr []byte, fn func(value []byte)) bool {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	i = skipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return true
	}
	for i < len(arr) {
		end, ok := skipValue(arr, i)
		if !ok {
			return false
		}
		fn(arr[i:end])
		i = skipSpace(arr, end)
		if i >= len(arr) {
			return false
		}
		switch arr[i] {
		case ',':
			i = skipSpace(arr, i+1)
		case ']':
			return true
		default:
			return false
		}
	}
	return false
}
