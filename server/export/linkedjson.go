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
	w.Key("version")
	w.String(e.Version)
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
	w.Key("exportedAt")
	w.String(e.ExportedAt)
	w.Close('}')
	return w.Buf
}

func (m *RevisionMetadata) write(w *jsonx.Writer) {
	w.Open('{')
	w.Key("isOriginal")
	w.Bool(m.IsOriginal)
	w.Key("isRevision")
	w.Bool(m.IsRevision)
	w.Key("revisesThought")
	w.OptInt(m.RevisesThought)
	w.Key("revisedBy")
	w.Ints(m.RevisedBy)
	w.Key("revisionDepth")
	w.Int(m.RevisionDepth)
	w.Key("revisionChainId")
	w.String(m.RevisionChainID)
	w.Close('}')
}

func (a *RevisionAnalysis) write(w *jsonx.Writer) {
	w.Open('{')
	w.Key("totalRevisions")
	w.Int(a.TotalRevisions)
	w.Key("mostRevisedThought")
	if a.MostRevisedThought == nil {
		w.Null()
	} else {
		w.Open('{')
		w.Key("thoughtNumber")
		w.Int(a.MostRevisedThought.ThoughtNumber)
		w.Key("revisionCount")
		w.Int(a.MostRevisedThought.RevisionCount)
		w.Close('}')
	}
	w.Key("avgTemporalDistance")
	w.Float(a.AvgTemporalDistance)
	w.Key("revisionDensity")
	w.Float(a.RevisionDensity)
	w.Close('}')
}
