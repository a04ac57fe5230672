package export

import "github.com/thoughtbox-bench/tbbench/server/jsonx"

// An export renders every node of a session, once per closed session;
// writing it by hand instead of through encoding/json's reflection and
// re-indentation saves most of the encoding time. The output is byte for
// byte what encoding/json produces (TestLinkedJSON checks it on random
// exports).

// AppendPrettyJSON appends the export as jsonx.Pretty renders it by
// reflection (two-space indentation, no HTML escaping).
func (e Linked) AppendPrettyJSON(dst []byte) []byte {
	w := jsonx.Writer{Buf: dst, Indent: true}
	w.Open('{')
	w.StringField("version", e.Version)
	w.Key("session")
	e.Session.WriteJSON(&w)
	w.Key("nodes")
	if e.Nodes == nil {
		w.Null()
	} else {
		w.Open('[')
		for i := range e.Nodes {
			n := &e.Nodes[i]
			w.Elem()
			w.Open('{')
			n.Node.WriteMembers(&w)
			w.Key("revisionMetadata")
			n.RevisionMetadata.write(&w)
			w.Close('}')
		}
		w.Close(']')
	}
	w.Key("revisionAnalysis")
	e.RevisionAnalysis.write(&w)
	w.StringField("exportedAt", e.ExportedAt)
	w.Close('}')
	return w.Buf
}

func (m *RevisionMetadata) write(w *jsonx.Writer) {
	w.Open('{')
	w.BoolField("isOriginal", m.IsOriginal)
	w.BoolField("isRevision", m.IsRevision)
	w.OptIntField("revisesThought", m.RevisesThought)
	w.IntsField("revisedBy", m.RevisedBy)
	w.IntField("revisionDepth", m.RevisionDepth)
	w.StringField("revisionChainId", m.RevisionChainID)
	w.Close('}')
}

func (a *RevisionAnalysis) write(w *jsonx.Writer) {
	w.Open('{')
	w.IntField("totalRevisions", a.TotalRevisions)
	w.Key("mostRevisedThought")
	if a.MostRevisedThought == nil {
		w.Null()
	} else {
		w.Open('{')
		w.IntField("thoughtNumber", a.MostRevisedThought.ThoughtNumber)
		w.IntField("revisionCount", a.MostRevisedThought.RevisionCount)
		w.Close('}')
	}
	w.FloatField("avgTemporalDistance", a.AvgTemporalDistance)
	w.FloatField("revisionDensity", a.RevisionDensity)
	w.Close('}')
}
