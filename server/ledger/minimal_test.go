package ledger

import (
	"testing"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
)

// The hand-rendered minimal answer must equal the generic rendering.
func TestMinimalMatchesGenericRendering(t *testing.T) {
	for _, n := range []int{1, 42, 100000} {
		sid := "99998bbf-4d90-4a3a-a1a4-364f8e4a7b05"
		if got, want := minimal(n, sid).FirstText(), jsonx.PrettyString(minimalResponse{ThoughtNumber: n, SessionID: sid}); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
