package target_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// TestRawHTTPRecordsEveryHeaderSent checks that the transcript of a raw
// HTTP request holds the header fields as sent, an overridden Host
// included (net/http keeps it outside Request.Header), and that the server
// got that Host.
func TestRawHTTPRecordsEveryHeaderSent(t *testing.T) {
	var gotHost string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotHost = r.Host
		w.WriteHeader(http.StatusForbidden)
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	rec, err := transcript.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := target.RawHTTP(context.Background(), rec, srv.URL+"/mcp", "POST", "",
		map[string]string{"Host": "evil.example:80", "Origin": "http://evil.example"}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if err != nil || res.Status != http.StatusForbidden {
		t.Fatalf("status %d, %v", res.Status, err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if gotHost != "evil.example:80" {
		t.Fatalf("the server got Host %q", gotHost)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sent http.Header
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var e transcript.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		if e.Kind == transcript.HTTP && e.HTTP != nil {
			sent = e.HTTP.RequestHeader
		}
	}
	for key, want := range map[string]string{"Host": "evil.example:80", "Origin": "http://evil.example",
		"Content-Type": "application/json", "Content-Length": "40", "User-Agent": ""} {
		got, ok := sent[key]
		if !ok || (want != "" && (len(got) != 1 || got[0] != want)) {
			t.Errorf("header %s recorded as %q, want %q (recorded: %v)", key, got, want, sent)
		}
	}
}
