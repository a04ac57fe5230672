package fsstore

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadJournalFrom reads a journal of three records and a torn line from
// each record's start, from the end of the complete lines, and with a
// corrupt line in the middle: the records after the offset, the length of
// their lines, the torn tail; and the records before a corrupt line, the
// line named.
func TestReadJournalFrom(t *testing.T) {
	dir := t.TempDir()
	var starts []int64
	var journal []byte
	for seq := 1; seq <= 3; seq++ {
		starts = append(starts, int64(len(journal)))
		line, err := record{Seq: seq, Op: opAdd, File: thoughtFile(seq)}.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		journal = append(append(journal, line...), '\n')
	}
	size := int64(len(journal))
	path := filepath.Join(dir, journalName)
	if err := os.WriteFile(path, append(journal, `{"seq":4,"op":"ad`...), 0o600); err != nil {
		t.Fatal(err)
	}

	for i, off := range append(starts, size) {
		tail, err := readJournalFrom(dir, off)
		if err != nil || tail.corrupt != nil {
			t.Fatalf("from %d: %v, %v", off, err, tail.corrupt)
		}
		if len(tail.records) != 3-i || tail.consumed != size-off || tail.torn != len(`{"seq":4,"op":"ad`) {
			t.Fatalf("from %d: %d records, %d bytes consumed, %d torn", off, len(tail.records), tail.consumed, tail.torn)
		}
		if len(tail.records) > 0 && tail.records[0].Seq != i+1 {
			t.Fatalf("from %d: first record %d, want %d", off, tail.records[0].Seq, i+1)
		}
	}

	data, _ := os.ReadFile(path)
	corrupt := bytes.Replace(data, []byte(`"seq":2`), []byte(`"seq":2,,`), 1)
	os.WriteFile(path, corrupt, 0o600)
	tail, err := readJournalFrom(dir, 0)
	if err != nil || len(tail.records) != 1 || tail.corrupt == nil || !strings.Contains(tail.corrupt.Error(), "line 2") {
		t.Fatalf("corrupt line 2: %d records, %v, %v", len(tail.records), tail.corrupt, err)
	}
	if _, err := readJournalFrom(t.TempDir(), 0); err != errNoJournal {
		t.Fatalf("no journal: %v", err)
	}
}

// TestReadAllFrom: what readAllFrom reads of files of several sizes, from
// several offsets, is what os.ReadFile reads after the offset.
func TestReadAllFrom(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 511, 512, 513, 4096, 70000} {
		path := filepath.Join(dir, "f")
		want := bytes.Repeat([]byte("abcdefg\n"), size/8+1)[:size]
		if err := os.WriteFile(path, want, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, off := range []int{0, size / 2, size, size + 10} {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAllFrom(f, int64(off))
			f.Close()
			if err != nil || !bytes.Equal(got, want[min(off, size):]) {
				t.Fatalf("size %d from %d: %d bytes, %v", size, off, len(got), err)
			}
		}
	}
}
