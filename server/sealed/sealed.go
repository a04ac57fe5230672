// Package sealed turns a value into an opaque token a client hands back
// unchanged (a multi round-trip requestState): its JSON, signed with
// HMAC-SHA256, so that a token the server did not issue, or one changed
// on the way, is refused.
package sealed

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// ErrInvalid is a token that was not sealed under the key, was changed, or
// does not decode.
var ErrInvalid = errors.New("the token was not issued by this server, or was changed")

// Seal returns v as a token: base64url(JSON) "." base64url(HMAC-SHA256 of
// the JSON under key).
func Seal(key []byte, v any) (string, error) {
	payload, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(mac(key, payload)), nil
}

// Open checks token's signature under key and decodes its JSON into v.
func Open(key []byte, token string, v any) error {
	p, sig, ok := strings.Cut(token, ".")
	if !ok {
		return ErrInvalid
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(got, mac(key, payload)) || json.Unmarshal(payload, v) != nil {
		return ErrInvalid
	}
	return nil
}

func mac(key, payload []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(payload)
	return m.Sum(nil)
}
