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
	w.Key("id")
	w.String(n.ID)
	w.Key("data")
	n.Data.write(w)
	w.Key("prev")
	w.OptString(n.Prev)
	w.Key("next")
	w.Strings(n.Next)
	w.Key("revisesNode")
	w.OptString(n.RevisesNode)
	w.Key("branchOrigin")
	w.OptString(n.BranchOrigin)
	w.Key("branchId")
	w.OptString(n.BranchID)
}

func (d *ThoughtData) write(w *jsonx.Writer) {
	w.Open('{')
	w.Key("thought")
	w.String(d.Thought)
	w.Key("thoughtNumber")
	w.Int(d.ThoughtNumber)
	w.Key("totalThoughts")
	w.Int(d.TotalThoughts)
	w.Key("nextThoughtNeeded")
	w.Bool(d.NextThoughtNeeded)
	w.OmitNilBool("isRevision", d.IsRevision)
	w.OmitNilInt("revisesThought", d.RevisesThought)
	w.OmitNilInt("branchFromThought", d.BranchFromThought)
	w.OmitEmptyString("branchId", d.BranchID)
	w.OmitNilBool("needsMoreThoughts", d.NeedsMoreThoughts)
	w.OmitNilBool("includeGuide", d.IncludeGuide)
	w.OmitEmptyString("agentId", d.AgentID)
	w.OmitEmptyString("agentName", d.AgentName)
	w.Key("timestamp")
	w.String(d.Timestamp)
	if d.Critique != nil {
		w.Key("critique")
		w.Open('{')
		w.Key("text")
		w.String(d.Critique.Text)
		w.Key("model")
		w.String(d.Critique.Model)
		w.Key("timestamp")
		w.String(d.Critique.Timestamp)
		w.Close('}')
	}
	w.Close('}')
}

// WriteJSON writes the session as an object, as encoding/json renders it.
func (s *Session) WriteJSON(w *jsonx.Writer) {
	w.Open('{')
	w.Key("id")
	w.String(s.ID)
	w.Key("title")
	w.String(s.Title)
	w.OmitNilString("description", s.Description)
	w.Key("tags")
	w.Strings(s.Tags)
	w.Key("thoughtCount")
	w.Int(s.ThoughtCount)
	w.Key("branchCount")
	w.Int(s.BranchCount)
	w.OmitEmptyString("partitionPath", s.PartitionPath)
	w.Key("createdAt")
	w.String(s.CreatedAt)
	w.Key("updatedAt")
	w.String(s.UpdatedAt)
	w.Key("lastAccessedAt")
	w.String(s.LastAccessedAt)
	w.Close('}')
}
