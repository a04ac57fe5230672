package gateway

import (
	"encoding/json"
	"testing"
)

// TestSplitCall checks that the fast decoding of the arguments object gives
// what encoding/json gives wherever it answers, and leaves the rest to it.
func TestSplitCall(t *testing.T) {
	same := []string{
		`{"operation":"thought","args":{"thought":"x","nextThoughtNeeded":true}}`,
		`{"args":{"a":[1,"}"]},"operation":"read_thoughts"}`,
		` {"operation" : "cipher"} `,
		`{"operation":null}`,
		`{"operation":"a","operation":"b"}`,
		`{"operation":"a","operation":null}`,
		`{"args":null,"operation":"get_state","other":{"x":1}}`,
		`{"args":"text","operation":"thought"}`,
		`{}`,
	}
	for _, raw := range same {
		got, ok := splitCall([]byte(raw))
		if !ok {
			t.Errorf("%s: left to encoding/json", raw)
			continue
		}
		var want gatewayCall
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		if (got.Operation == nil) != (want.Operation == nil) || (got.Operation != nil && *got.Operation != *want.Operation) ||
			string(got.Args) != string(want.Args) {
			t.Errorf("%s: got %v %s, want %v %s", raw, got.Operation, got.Args, want.Operation, want.Args)
		}
	}
	for _, raw := range []string{
		`{"Operation":"thought"}`,      // encoding/json matches keys case-insensitively
		`{"ARGS":{}}`,                  // likewise
		`{"operation":"thou\u0067ht"}`, // escaped value
		`{"operation":5}`,              // a type error
		`{"op\u0065ration":"x"}`,       // escaped key
		`[]`, `null`, ``, `{"operation":`,
	} {
		if _, ok := splitCall([]byte(raw)); ok {
			t.Errorf("%s: decoded, want left to encoding/json", raw)
		}
	}
}
