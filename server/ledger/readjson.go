package ledger

import "github.com/thoughtbox-bench/tbbench/server/jsonx"

// read_thoughts answers with whole thoughts, a tenth of the calls of a
// usual mix: rendered by hand instead of through encoding/json's reflection
// and re-indentation, byte for byte the same (TestReadResponseJSON checks
// it on random answers).

// AppendPrettyJSON appends the answer as jsonx.Pretty renders it by
// reflection (two-space indentation, no HTML escaping).
func (r readResponse) AppendPrettyJSON(dst []byte) []byte {
	w := jsonx.Writer{Buf: dst, Indent: true}
	w.Open('{')
	w.StringField("sessionId", r.SessionID)
	w.StringField("query", r.Query)
	w.IntField("count", r.Count)
	w.Key("thoughts")
	if r.Thoughts == nil {
		w.Null()
	} else {
		w.Open('[')
		for i := range r.Thoughts {
			w.Elem()
			r.Thoughts[i].write(&w)
		}
		w.Close(']')
	}
	w.Close('}')
	return w.Buf
}

func (t *readThought) write(w *jsonx.Writer) {
	w.Open('{')
	w.IntField("thoughtNumber", t.ThoughtNumber)
	w.StringField("thought", t.Thought)
	w.IntField("totalThoughts", t.TotalThoughts)
	w.BoolField("isRevision", t.IsRevision)
	w.OmitNilInt("revisesThought", t.RevisesThought)
	w.OmitEmptyString("branchId", t.BranchID)
	w.OmitNilInt("branchFromThought", t.BranchFromThought)
	w.OmitEmptyString("agentId", t.AgentID)
	w.OmitEmptyString("agentName", t.AgentName)
	w.StringField("timestamp", t.Timestamp)
	if t.Critique != nil {
		w.Key("critique")
		t.Critique.WriteJSON(w)
	}
	w.Close('}')
}
