package sidecar

import (
	"bytes"
	"encoding/json"

	"github.com/thoughtbox-bench/tbbench/internal/jsonscan"
)

// The proxy's JSON scanner (internal/jsonscan) and what it builds on it.

func skipSpace(d []byte, i int) int { return jsonscan.SkipSpace(d, i) }

// skipString returns the index after the string starting at d[i] == '"'.
func skipString(d []byte, i int) (int, bool) { return jsonscan.SkipString(d, i) }

// skipValue returns the index after the value starting at d[i].
func skipValue(d []byte, i int) (int, bool) { return jsonscan.SkipValue(d, i) }

// eachMember calls fn with the raw key (quotes stripped, escapes kept) and
// raw value of every member of the object obj. It reports whether obj was
// an object that scanned cleanly.
func eachMember(obj []byte, fn func(key, value []byte)) bool { return jsonscan.EachMember(obj, fn) }

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
func eachElement(arr []byte, fn func(value []byte)) bool { return jsonscan.EachElement(arr, fn) }
