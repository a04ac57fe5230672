package fsstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/thoughtbox-bench/tbbench/server/readall"
)

// errNoJournal reports a session directory without a journal.
var errNoJournal = errors.New("no journal")

// journalTail is what a journal holds after a byte offset.
type journalTail struct {
	records []record
	// consumed is the length of the complete lines read (up to a corrupt
	// line, when there is one).
	consumed int64
	// torn is the length of a last line without its newline: an append
	// that never completed, never acknowledged. Another live process may
	// be writing it right now.
	torn int
	// corrupt is set when a complete line cannot be read: records before
	// it are returned, nothing after it.
	corrupt error
}

// readJournalFrom reads the journal in dir from byte offset on. It fails
// with errNoJournal when there is no journal.
func readJournalFrom(dir string, offset int64) (journalTail, error) {
	var t journalTail
	f, err := os.Open(filepath.Join(dir, journalName))
	if errors.Is(err, os.ErrNotExist) {
		return t, errNoJournal
	}
	if err != nil {
		return t, err
	}
	defer f.Close()
	data, err := readAllFrom(f, offset)
	if err != nil {
		return t, err
	}
	end := bytes.LastIndexByte(data, '\n') + 1
	t.torn = len(data) - end
	data = data[:end]
	for line := 1; len(data) > 0; line++ {
		i := bytes.IndexByte(data, '\n')
		var r record
		if err := json.Unmarshal(data[:i], &r); err != nil || r.Op == "" {
			if offset == 0 {
				t.corrupt = fmt.Errorf("journal line %d is corrupt", line)
			} else {
				t.corrupt = fmt.Errorf("journal line %d after byte %d is corrupt", line, offset)
			}
			return t, nil
		}
		t.records = append(t.records, r)
		t.consumed += int64(i) + 1
		data = data[i+1:]
	}
	return t, nil
}

// readAllFrom reads f from byte offset to its end, into a buffer of the
// size its stat gives, grown only when the file grew since (a journal this
// process is up to date with costs one byte of buffer).
func readAllFrom(f *os.File, offset int64) ([]byte, error) {
	size := 0
	if fi, err := f.Stat(); err == nil && fi.Size() > offset {
		size = int(fi.Size() - offset)
	}
	// + 1: the read that finds the end.
	return readall.Append(make([]byte, 0, size+1), io.NewSectionReader(f, offset, math.MaxInt64-offset))
}

// journalSize returns the journal's length in bytes (0 when it is missing).
func journalSize(dir string) int64 {
	fi, err := os.Stat(filepath.Join(dir, journalName))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// dropTornTail cuts a torn last line off the journal, so that the next
// append starts a line of its own. Only the session's owner may call it.
func dropTornTail(dir string, size int64) error {
	return os.Truncate(filepath.Join(dir, journalName), size)
}
