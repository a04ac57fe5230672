package robust

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRobustInContextKeepsTheArguments: a 2026-era tool input runs in its
// connection's context unless its arguments name one or are no object, and
// its own bytes (a NUL escape, an unpaired surrogate) are kept.
func TestRobustInContextKeepsTheArguments(t *testing.T) {
	const id = "0123456789abcdef0123456789abcdef"
	for in, want := range map[string]string{
		`{}`:                                   `{"contextId":"` + id + `"}`,
		` {"operation":"thought\ud800\u0000"}`: `{"contextId":"` + id + `","operation":"thought\ud800\u0000"}`,
		`{"operation":"x","contextId":42}`:     `{"operation":"x","contextId":42}`,
		`[]`:                                   `[]`,
		`null`:                                 `null`,
		`"get_state"`:                          `"get_state"`,
	} {
		if got := string(inContext(json.RawMessage(in), id)); got != want {
			t.Errorf("inContext(%s) = %s, want %s", in, got, want)
		}
	}
	if got := string(inContext(json.RawMessage(`{"a":1}`), "")); got != `{"a":1}` {
		t.Errorf("no context: %s", got)
	}
}

// TestRobustTamperChangesOneCharacter: a tampered requestState differs from the
// real one in exactly one letter or digit, never in the last character.
func TestRobustTamperChangesOneCharacter(t *testing.T) {
	for _, s := range []string{"eyJrIjoiY3JpdGlxdWUifQ.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdE", "abc", "a.b", "x"} {
		got := tamper(s)
		if len(got) != len(s) {
			t.Errorf("tamper(%q) = %q: another length", s, got)
			continue
		}
		diffs := 0
		for i := range s {
			if s[i] != got[i] {
				diffs++
				if len(s) > 1 && i == len(s)-1 {
					t.Errorf("tamper(%q) changed the last character", s)
				}
			}
		}
		if diffs != 1 || strings.ContainsAny(got, "+/=") {
			t.Errorf("tamper(%q) = %q: %d characters changed", s, got, diffs)
		}
	}
}
