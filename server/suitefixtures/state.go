package suitefixtures

import (
	"encoding/base64"
	"errors"

	"github.com/thoughtbox-bench/tbbench/server/sealed"
)

// A multi round-trip fixture keeps what it learnt in earlier rounds in the
// requestState it hands the client, sealed (package sealed) so that the client
// cannot change it, under a key made when the fixtures are registered.

// roundState is what a requestState carries.
type roundState struct {
	// Tool names the fixture that issued the state; a state is refused by
	// any other.
	Tool string `json:"tool"`
	// Round is the round the state was issued in (1 for the first).
	Round int `json:"round"`
	// Values are the answers gathered so far.
	Values map[string]string `json:"values,omitempty"`
	// Nonce makes every state distinct.
	Nonce string `json:"nonce"`
}

// errBadState is a requestState that fails its integrity check or belongs
// to another fixture.
var errBadState = errors.New("requestState failed its integrity check: it was not issued by this server for this tool, or it was changed")

// stateSigner signs and opens requestStates.
type stateSigner struct{ key []byte }

func newStateSigner() stateSigner { return stateSigner{key: randomBytes(32)} }

// sign returns st as a requestState.
func (s stateSigner) sign(st roundState) string {
	st.Nonce = base64.RawURLEncoding.EncodeToString(randomBytes(9))
	token, _ := sealed.Seal(s.key, st)
	return token
}

// open checks token's signature and that tool issued it.
func (s stateSigner) open(token, tool string) (roundState, error) {
	var st roundState
	if sealed.Open(s.key, token, &st) != nil || st.Tool != tool {
		return st, errBadState
	}
	return st, nil
}
