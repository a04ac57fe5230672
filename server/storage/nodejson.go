package storage

import "github.com/thoughtbox-bench/tbbench/server/jsonx"

// The thought files and the journal hold one node each, written once per
// thought; rendering a node by hand instead of through encoding/json's
// reflection saves most of the encoding time. The output is byte for byte
// what encoding/json produces for the same node (TestNodeJSON checks it
// against every field of the types).

// AppendPrettyJSON appends the node as jsonx.Pretty renders it (two-space
// indentation, no HTML escaping); jsonx.Pretty uses it.
func (n Node) AppendPrettyJSON(dst []byte) []byte {
	w := jsonx.Writer{Buf: dst, Indent: true}
	n.write(&w)
	return w.Buf
}

// AppendJSON appends the node as json.Marshal renders it (compact, <, > and
// & escaped).
func (n *Node) AppendJSON(dst []byte) []byte {
	w := jsonx.Writer{Buf: dst, EscapeHTML: true}
	n.write(&w)
	return w.Buf
}

func (n *Node) write(w *jsonx.Writer) {
	w.Open('{')
	n.WriteMembers(w)
	w.Close('}')
}

// WriteMembers writes the node's members into the object w has open, as
// encoding/json renders them (for types that embed Node and add members).
func (n *Node) WriteMembers(w *jsonx.Writer) {
	w.StringField("id", n.ID)
	w.Key("data")
	n.Data.write(w)
	w.OptStringField("prev", n.Prev)
	w.StringsField("next", n.Next)
	w.OptStringField("revisesNode", n.RevisesNode)
	w.OptStringField("branchOrigin", n.BranchOrigin)
	w.OptStringField("branchId", n.BranchID)
}

func (d *ThoughtData) write(w *jsonx.Writer) {
	w.Open('{')
	w.StringField("thought", d.Thought)
	w.IntField("thoughtNumber", d.ThoughtNumber)
	w.IntField("totalThoughts", d.TotalThoughts)
	w.BoolField("nextThoughtNeeded", d.NextThoughtNeeded)
	w.OmitNilBool("isRevision", d.IsRevision)
	w.OmitNilInt("revisesThought", d.RevisesThought)
	w.OmitNilInt("branchFromThought", d.BranchFromThought)
	w.OmitEmptyString("branchId", d.BranchID)
	w.OmitNilBool("needsMoreThoughts", d.NeedsMoreThoughts)
	w.OmitNilBool("includeGuide", d.IncludeGuide)
	w.OmitEmptyString("agentId", d.AgentID)
	w.OmitEmptyString("agentName", d.AgentName)
	w.StringField("timestamp", d.Timestamp)
	if d.Critique != nil {
		w.Key("critique")
		d.Critique.WriteJSON(w)
	}
	w.Close('}')
}

// WriteJSON writes the critique as an object, as encoding/json renders it.
func (c *Critique) WriteJSON(w *jsonx.Writer) {
	w.Open('{')
	w.StringField("text", c.Text)
	w.StringField("model", c.Model)
	w.StringField("timestamp", c.Timestamp)
	w.Close('}')
}

// WriteJSON writes the session as an object, as encoding/json renders it.
func (s *Session) WriteJSON(w *jsonx.Writer) {
	w.Open('{')
	w.StringField("id", s.ID)
	w.StringField("title", s.Title)
	w.OmitNilString("description", s.Description)
	w.StringsField("tags", s.Tags)
	w.IntField("thoughtCount", s.ThoughtCount)
	w.IntField("branchCount", s.BranchCount)
	w.OmitEmptyString("partitionPath", s.PartitionPath)
	w.StringField("createdAt", s.CreatedAt)
	w.StringField("updatedAt", s.UpdatedAt)
	w.StringField("lastAccessedAt", s.LastAccessedAt)
	w.Close('}')
}
