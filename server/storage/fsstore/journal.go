package fsstore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
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

// appendRecord appends r to the journal in dir with one write.
func appendRecord(dir string, r record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, journalName)
	fd, err := sysOpen(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	werr := sysWrite(fd, path, append(line, '\n'))
	cerr := sysClose(fd, path)
	if werr != nil {
		return werr
	}
	return cerr
}

// errNoJournal reports a session directory without a journal.
var errNoJournal = fmt.Errorf("no journal")

// readJournal returns the records of the journal in dir. A last line without
// its newline is an append that never completed (its change was never
// acknowledged) and is ignored. Any other unreadable line is corruption: the
// records before it are returned with an error.
func readJournal(dir string) ([]record, error) {
	data, err := os.ReadFile(filepath.Join(dir, journalName))
	if os.IsNotExist(err) {
		return nil, errNoJournal
	}
	if err != nil {
		return nil, err
	}
	if i := bytes.LastIndexByte(data, '\n'); i < len(data)-1 {
		data = data[:i+1]
	}
	var out []record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Op == "" {
			return out, fmt.Errorf("journal line %d is corrupt", line)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}
