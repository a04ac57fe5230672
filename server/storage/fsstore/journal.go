package fsstore

import "github.com/thoughtbox-bench/tbbench/server/storage"

// journalName is the session's write-ahead log: one JSON line per change,
// appended before the change is acknowledged. A thought is durable once its
// line is written; the thought files and the manifest are materialised from
// memory in the background and, after a crash, from the journal. The journal
// is also the record of creation order, which fixes every prev and next link.
const journalName = "journal.jsonl"

// Journal record operations.
const (
	opSession = "session" // the session was created (Session holds its metadata)
	opMeta    = "meta"    // session metadata changed (Session)
	opAdd     = "add"     // a thought was added (Node, as created; File)
	opRewrite = "rewrite" // a thought's data changed, e.g. a critique (Node; File)
)

// record is one line of the journal.
type record struct {
	Seq     int              `json:"seq"`
	Op      string           `json:"op"`
	File    string           `json:"file,omitempty"`
	Session *storage.Session `json:"session,omitempty"`
	Node    *storage.Node    `json:"node,omitempty"`
}
