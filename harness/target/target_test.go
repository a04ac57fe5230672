package target_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/noop"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		`node dist/index.js --port {port}`: {"node", "dist/index.js", "--port", "{port}"},
		`sh -c 'echo "a b"'`:               {"sh", "-c", `echo "a b"`},
		`  a   "b c"  `:                    {"a", "b c"},
	} {
		got, err := target.SplitCommand(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	if _, err := target.SplitCommand(`a "b`); err == nil {
		t.Error("unterminated quote accepted")
	}
}

func TestParseToolResultKeepsUnknownBlocks(t *testing.T) {
	r, err := target.ParseToolResult(json.RawMessage(`{"isError":true,"content":[{"type":"text","text":"{\"a\":1}"},{"type":"hologram","x":1},{"type":"resource","resource":{"uri":"u","mimeType":"m","text":"t"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !r.IsError || len(r.Blocks) != 3 || r.Blocks[1].Type != "hologram" || string(r.Blocks[1].Raw) != `{"type":"hologram","x":1}` {
		t.Fatalf("%+v", r)
	}
	if r.Blocks[2].URI != "u" || r.Blocks[2].Text != "t" || !slices.Equal(r.Describe(), []string{"hologram", "resource u"}) {
		t.Errorf("blocks %+v describe %v", r.Blocks, r.Describe())
	}
	if m, err := r.JSON(); err != nil || m["a"] != 1.0 {
		t.Errorf("JSON %v %v", m, err)
	}
}

func TestMain(m *testing.M) {
	target.HoldPortClaimIfAsked()
	// Child targets re-execute this test binary.
	embedded.ServeIfRequested()
	noop.ServeIfRequested()
	os.Exit(m.Run())
}

// TestSessionsAreRecorded opens an HTTP session with the embedded server and
// checks the transcript holds both directions of every message.
func TestSessionsAreRecorded(t *testing.T) {
	tg, err := embedded.New(context.Background(), embedded.Options{Storage: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	rec, err := transcript.Create(t.TempDir() + "/t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	c, err := target.Connect(context.Background(), tg, rec, target.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Gateway(context.Background(), "get_state", nil)
	if err != nil || res.IsError || res.Text() == "" {
		t.Fatalf("get_state: %+v %v", res, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	rec.Close()
	counts := rec.Counts()
	if counts.Methods["initialize"] != 1 || counts.Methods["tools/call"] != 1 || counts.Operations["thoughtbox_gateway/get_state"] != 1 {
		t.Errorf("counts %+v", counts)
	}
}

// TestACanceledRequestSaysWhoClosedTheConnection checks the error of a
// request canceled under a connection: while it is open, the caller's
// context; once closed, where Close was called from.
func TestACanceledRequestSaysWhoClosedTheConnection(t *testing.T) {
	tg, err := embedded.New(context.Background(), embedded.Options{Storage: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	c, err := target.Connect(context.Background(), tg, transcript.Discard(), target.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.Gateway(ctx, "get_state", nil)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "the connection was open: the caller's context was canceled") {
		t.Errorf("a call with a canceled context on an open connection: %v", err)
	}
	other := errors.New("connection refused")
	if got := c.Canceled(context.Background(), other); got != other {
		t.Errorf("another error became %v", got)
	}
	// A request canceled by something else than its caller (net/http
	// closing the connection it was on for another request's sake).
	if got := c.Canceled(context.Background(), fmt.Errorf("failed to send request: %w", context.Canceled)); !errors.Is(got, context.Canceled) ||
		!strings.Contains(got.Error(), "the caller's context was not canceled") {
		t.Errorf("a request canceled under a live caller: %v", got)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	got := c.Canceled(context.Background(), fmt.Errorf("failed to send request: %w", context.Canceled))
	if !errors.Is(got, context.Canceled) || !strings.Contains(got.Error(), "the connection had been closed, by target_test.go:") {
		t.Errorf("a request canceled by the close: %v", got)
	}
}
