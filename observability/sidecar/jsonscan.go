package sidecar

import (
	"bytes"
	"encoding/json"

	"github.com/thoughtbox-bench/tbbench/internal/jsonscan"
)

// What the proxy builds on its JSON scanner (internal/jsonscan).

// member returns the raw value of the member named key (an escape-free
// name) of obj, or nil.
func member(obj []byte, key string) []byte {
	var v []byte
	jsonscan.EachMember(obj, func(k, val []byte) {
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
