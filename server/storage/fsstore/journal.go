package fsstore

import (
	"os"
	"path/filepath"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

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

// appendRecord appends r to the journal in dir with one write and returns
// the length of the line it wrote.
func appendRecord(dir string, r record) (int64, error) {
	// Its own encoder, not json.Marshal, which would check and compact
	// what it renders once more.
	line, err := r.MarshalJSON()
	if err != nil {
		return 0, err
	}
	path := filepath.Join(dir, journalName)
	fd, err := sysOpen(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, err
	}
	werr := sysWrite(fd, path, append(line, '\n'))
	cerr := sysClose(fd, path)
	if werr != nil {
		return 0, werr
	}
	return int64(len(line)) + 1, cerr
}
