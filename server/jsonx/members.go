package jsonx

import (
	"bytes"
	"unicode/utf8"

	"github.com/thoughtbox-bench/tbbench/internal/jsonscan"
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
	if !Valid(raw) {
		return dst, false
	}
	return AppendMembersOfValid(dst, raw)
}

// AppendMembersOfValid is AppendMembers for raw known to be valid JSON (a
// member value of a document AppendMembers accepted): it does not check
// raw again.
func AppendMembersOfValid(dst []Member, raw []byte) ([]Member, bool) {
	plain := true
	scanned := jsonscan.EachMember(raw, func(key, value []byte) {
		if plain = plain && bytes.IndexByte(key, '\\') < 0 && utf8.Valid(key); plain {
			dst = append(dst, Member{Key: key, Value: value})
		}
	})
	return dst, scanned && plain
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
