package jsonx

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Member is one member of a JSON object: its key as written between the
// quotes and its value's raw bytes (without surrounding white space).
type Member struct {
	Key   []byte
	Value []byte
}

// AppendMembers appends the members of the JSON object raw to dst, in
// order, without decoding the values, and reports whether it could: raw must
// be valid JSON holding an object whose keys carry no escape sequences and
// are valid UTF-8, so that every key is exactly the string encoding/json
// would decode. When it reports false the caller decodes raw with
// encoding/json, which gives the same result (or the error) the slow way.
// The members alias raw.
func AppendMembers(dst []Member, raw []byte) ([]Member, bool) {
	if !json.Valid(raw) {
		return dst, false
	}
	return AppendMembersOfValid(dst, raw)
}

// AppendMembersOfValid is AppendMembers for raw known to be valid JSON (a
// member value of a document AppendMembers accepted): it does not check
// raw again.
func AppendMembersOfValid(dst []Member, raw []byte) ([]Member, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return dst, false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return dst, true
	}
	for i < len(raw) && raw[i] == '"' {
		end, escaped := scanString(raw, i)
		key := raw[i+1 : end-1]
		if escaped || !utf8.Valid(key) {
			return dst, false
		}
		i = skipSpace(raw, end) // at ':'
		start := skipSpace(raw, i+1)
		stop := skipValue(raw, start)
		dst = append(dst, Member{Key: key, Value: raw[start:stop]})
		i = skipSpace(raw, stop)
		if i >= len(raw) || raw[i] != ',' {
			return dst, true
		}
		i = skipSpace(raw, i+1)
	}
	return dst, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the index after the string starting at b[i] (a quote)
// and whether it contains a backslash.
func scanString(b []byte, i int) (int, bool) {
	escaped := false
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return i + 1, escaped
		}
	}
	return len(b), escaped
}

// skipValue returns the index after the (valid) value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		end, _ := scanString(b, i)
		return end
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i, _ = scanString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// PlainString returns the string the JSON string literal raw (a valid JSON
// value) decodes to,
// when raw holds no escape sequence and is valid UTF-8 (so that the bytes
// between the quotes are the string); otherwise it reports false and the
// caller decodes raw with encoding/json.
func PlainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	v := raw[1 : len(raw)-1]
	if bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
		return "", false
	}
	return string(v), true
}
