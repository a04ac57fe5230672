package transcript_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

func TestGzipKeepsEveryLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	r, err := transcript.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		r.Add(transcript.Entry{Dir: transcript.Send, Kind: transcript.Request, Method: "ping", Message: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)})
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	plain, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := transcript.Gzip(path)
	if err != nil || gz != path+".gz" {
		t.Fatalf("Gzip: %q, %v", gz, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the plain transcript is still there: %v", err)
	}
	f, err := os.Open(gz)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	back, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, plain) || bytes.Count(back, []byte("\n")) != 100 {
		t.Errorf("decompressed %d bytes, want the %d written", len(back), len(plain))
	}
	if st, _ := f.Stat(); st.Size()*2 > int64(len(plain)) {
		t.Errorf("%d bytes compressed from %d", st.Size(), len(plain))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left in the directory: %v", entries)
	}
}

func TestGzipLeavesTheTranscriptOnAnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The compressed file's name is taken by a directory: the rename fails.
	if err := os.Mkdir(path+".gz", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := transcript.Gzip(path); err == nil {
		t.Fatal("no error")
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "{}\n" {
		t.Errorf("the transcript: %q, %v", b, err)
	}
	if _, err := os.Stat(path + ".gz.partial"); !os.IsNotExist(err) {
		t.Errorf("the partial file is left: %v", err)
	}
	if _, err := transcript.Gzip(filepath.Join(dir, "missing.jsonl")); err == nil {
		t.Error("no error for a missing transcript")
	}
}
