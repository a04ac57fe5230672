package ledger

import (
	"bytes"
	"math/rand"
	"reflect"
	"testing"
	"testing/quick"

	"github.com/thoughtbox-bench/tbbench/server/jsonx"
	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// TestReadResponseJSON compares the hand-written read_thoughts answer with
// encoding/json's rendering (reflection, two-space indentation, no HTML
// escaping) on random answers: every optional member present and absent,
// nil and empty lists, any runes.
func TestReadResponseJSON(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := range 300 {
		v, ok := quick.Value(reflect.TypeOf(readResponse{}), r)
		if !ok {
			t.Fatal("quick.Value failed")
		}
		resp := v.Interface().(readResponse)
		switch i % 5 {
		case 0:
			resp.Thoughts = nil
		case 1:
			resp.Thoughts = []readThought{}
		case 2:
			if len(resp.Thoughts) > 0 {
				th := &resp.Thoughts[0]
				th.RevisesThought, th.BranchFromThought, th.Critique = nil, nil, nil
				th.BranchID, th.AgentID, th.AgentName = "", "", ""
				th.Thought = "<b>&amp;</b> \" \\ \n\t\x00 \u2028 \xff bad"
			}
		case 3:
			for j := range resp.Thoughts {
				resp.Thoughts[j].Critique = &storage.Critique{Text: "a <critique>", Model: "m&m"}
			}
		}
		want, err := jsonx.Reflected(resp)
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.AppendPrettyJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("answer %d:\n got %.600s\nwant %.600s", i, got, want)
		}
		if got := jsonx.PrettyString(resp); got != string(want) {
			t.Fatalf("jsonx.PrettyString of answer %d differs", i)
		}
	}
}
