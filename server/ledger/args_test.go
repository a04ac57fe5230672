package ledger

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestForkNeedsBothFields checks D29: branchFromThought without branchId
// is refused naming both, as branchId without branchFromThought is; with
// both the arguments decode.
func TestForkNeedsBothFields(t *testing.T) {
	for _, c := range []struct {
		args    string
		refused bool
	}{
		{`{"thought": "x", "nextThoughtNeeded": true, "branchFromThought": 1}`, true},
		{`{"thought": "x", "nextThoughtNeeded": true, "branchFromThought": 1, "branchId": ""}`, true},
		{`{"thought": "x", "nextThoughtNeeded": true, "branchFromThought": 1, "branchId": null}`, true},
		{`{"thought": "x", "nextThoughtNeeded": true, "branchId": "a"}`, true},
		{`{"thought": "x", "nextThoughtNeeded": true, "branchFromThought": 1, "branchId": "a"}`, false},
		{`{"thought": "x", "nextThoughtNeeded": true, "branchFromThought": null}`, false},
	} {
		f, _, err := parseFields(json.RawMessage(c.args))
		if err != nil {
			t.Fatal(err)
		}
		_, bad := decodeThought(f)
		if !c.refused {
			if bad != nil {
				t.Errorf("%s refused: %+v", c.args, bad)
			}
			continue
		}
		fail, ok := bad.(failure)
		if !ok || !strings.Contains(fail.Error, "branchFromThought") || !strings.Contains(fail.Error, "branchId") {
			t.Errorf("%s: %+v, want a refusal naming branchFromThought and branchId", c.args, bad)
		}
	}
}
