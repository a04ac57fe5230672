package obsclient

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

func TestParseEndpoint(t *testing.T) {
	for in, want := range map[string]Endpoint{
		"http://127.0.0.1:1729":         {Base: "http://127.0.0.1:1729", WSPath: "/ws"},
		"http://127.0.0.1:1729/":        {Base: "http://127.0.0.1:1729", WSPath: "/ws"},
		"ws://h:1/live":                 {Base: "http://h:1", WSPath: "/live"},
		"wss://h:2":                     {Base: "https://h:2", WSPath: "/ws"},
		" https://obs.example:443/a/b ": {Base: "https://obs.example:443", WSPath: "/a/b"},
	} {
		got, err := ParseEndpoint(in)
		if err != nil || got != want {
			t.Errorf("ParseEndpoint(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "127.0.0.1:1729", "ftp://h:1", "http://"} {
		if _, err := ParseEndpoint(in); err == nil {
			t.Errorf("ParseEndpoint(%q) accepted", in)
		}
	}
	e := Endpoint{Base: "https://h:2", WSPath: "/ws"}
	if e.WS("") != "wss://h:2/ws" || e.WS("/x") != "wss://h:2/x" || e.API("/api/health") != "https://h:2/api/health" {
		t.Errorf("URLs of %+v: %s %s %s", e, e.WS(""), e.WS("/x"), e.API("/api/health"))
	}
}

func TestDecode(t *testing.T) {
	f := Decode([]byte(`["reasoning:a","thought:added",{"x":1}]`))
	if f.Topic != "reasoning:a" || f.Event != "thought:added" || string(f.Payload) != `{"x":1}` {
		t.Errorf("decoded %+v", f)
	}
	for _, raw := range []string{`not json`, `[1,"a",{}]`, `["a","b"]`, `{"a":1}`, `["a","b",{},4]`} {
		if f := Decode([]byte(raw)); f.Topic != "" || f.Event != "" || f.Payload != nil || f.Raw != raw {
			t.Errorf("Decode(%s) = %+v, want only Raw", raw, f)
		}
	}
}

// TestEveryFrameIsRecorded talks to a server that answers every frame with
// an error frame, then turns the client away with 1008: the transcript
// holds the opening, each frame both ways (JSON as messages, the rest as
// text) and the close with its status.
func TestEveryFrameIsRecorded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		for i := 0; i < 2; i++ {
			if _, _, err := c.Read(r.Context()); err != nil {
				return
			}
			c.Write(r.Context(), websocket.MessageText, []byte(`["error","error",{"code":"INVALID_PAYLOAD"}]`))
		}
		c.Close(websocket.StatusPolicyViolation, "full")
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	rec, err := transcript.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, wsURL(srv), Options{Name: "a", Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SendText(ctx, "garbage"); err != nil {
		t.Fatal(err)
	}
	if err := c.Send(ctx, "observatory", "subscribe", map[string]any{"id": "s"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Await(ctx, 0, func(i int, f Frame) bool { return i == 1 && f.Event == "error" }); err != nil {
		t.Fatal(err)
	}
	code, err := c.AwaitClose(ctx)
	if err != nil || code != websocket.StatusPolicyViolation {
		t.Fatalf("close status %d, %v; want 1008", code, err)
	}
	c.Close()
	rec.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{`"text":"opened ws://`, `"dir":"send","kind":"websocket","text":"garbage"`,
		`"dir":"send","kind":"websocket","message":["observatory","subscribe",{"id":"s"}]`,
		`"dir":"recv","kind":"websocket","message":["error","error",{"code":"INVALID_PAYLOAD"}]`, `closed: status 1008 \"full\"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the transcript lacks %s:\n%s", want, text)
		}
	}
	if n := strings.Count(text, `"message":["error","error"`); n != 2 {
		t.Errorf("%d error frames recorded, want 2", n)
	}
}

// TestAwaitAsksAboutEachFrameOnce waits for the last of 51 frames, ten of
// them there before Await is called and the rest arriving while it waits:
// ok is asked about every frame exactly once, in the order of arrival.
func TestAwaitAsksAboutEachFrameOnce(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		send := func(i int, event string) error {
			return c.Write(r.Context(), websocket.MessageText, []byte(fmt.Sprintf(`["t","%s",{"i":%d}]`, event, i)))
		}
		for i := 0; i < 10; i++ {
			if send(i, "e") != nil {
				return
			}
		}
		if _, _, err := c.Read(r.Context()); err != nil { // the client's go-ahead
			return
		}
		for i := 10; i < 50; i++ {
			time.Sleep(time.Millisecond)
			if send(i, "e") != nil {
				return
			}
		}
		if send(50, "last") != nil {
			return
		}
		_, _, _ = c.Read(r.Context()) // until the client goes
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, wsURL(srv), Options{Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for len(c.Frames()) < 10 {
		select {
		case <-ctx.Done():
			t.Fatalf("only %d of the first 10 frames came", len(c.Frames()))
		case <-time.After(time.Millisecond):
		}
	}
	if err := c.SendText(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	var asked []int
	i, f, err := c.Await(ctx, 0, func(i int, f Frame) bool {
		asked = append(asked, i)
		return f.Event == "last"
	})
	if err != nil || i != 50 || f.Event != "last" {
		t.Fatalf("Await = %d, %+v, %v; want frame 50, the last", i, f, err)
	}
	for k, got := range asked {
		if got != k {
			t.Fatalf("ok was asked about frames %v; want 0 to 50, each once, in order", asked)
		}
	}
	if len(asked) != 51 {
		t.Errorf("ok was asked %d times; want 51", len(asked))
	}
}

// TestAwaitWithQuietWaitsForABacklog: a server sends 20 frames 100 ms
// apart, the one awaited last. With a quiet time of 1 s, Await
// waits the 2 s they take, and the 3 s a slow judge of them takes; Await
// with a 1 s deadline gives up first. Once the server stops sending, it
// gives up after the quiet time.
func TestAwaitWithQuietWaitsForABacklog(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			if _, _, err := c.Read(r.Context()); err != nil { // a go-ahead for each run
				return
			}
			for i := 0; i < 20; i++ {
				time.Sleep(100 * time.Millisecond)
				event := "e"
				if i == 19 {
					event = "last"
				}
				if c.Write(r.Context(), websocket.MessageText, []byte(fmt.Sprintf(`["t","%s",{"i":%d}]`, event, i))) != nil {
					return
				}
			}
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dial := func() *Client {
		c, err := Dial(ctx, wsURL(srv), Options{Name: "a"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		if err := c.SendText(ctx, "go"); err != nil {
			t.Fatal(err)
		}
		return c
	}
	last := func(_ int, f Frame) bool { return f.Event == "last" }
	const quiet = time.Second

	c := dial()
	start := time.Now()
	i, _, err := c.Await(ctx, quiet, last)
	if err != nil || i != 19 {
		t.Fatalf("Await with a quiet time = frame %d, %v; want frame 19", i, err)
	}
	if took := time.Since(start); took < 1900*time.Millisecond {
		t.Fatalf("the 20 frames came in %s: the test's premise, a backlog longer than the quiet time, does not hold", took)
	}

	short, cancelShort := context.WithTimeout(ctx, quiet)
	defer cancelShort()
	if _, _, err := dial().Await(short, 0, last); err == nil {
		t.Fatal("Await found the last frame within the quiet time: the test's premise does not hold")
	}

	// A judge slower than the frames come (150 ms each, 3 s in all): the
	// frames were read within the quiet time, so it waits for the judge.
	slow := func(_ int, f Frame) bool {
		time.Sleep(150 * time.Millisecond)
		return f.Event == "last"
	}
	if i, _, err := dial().Await(ctx, quiet, slow); err != nil || i != 19 {
		t.Fatalf("Await with a quiet time with a slow judge = frame %d, %v; want frame 19", i, err)
	}

	// Nothing more comes: it gives up after the quiet time, well before ctx.
	start = time.Now()
	if _, _, err := c.Await(ctx, quiet, func(int, Frame) bool { return false }); err == nil || ctx.Err() != nil {
		t.Fatalf("Await with a quiet time with nothing coming = %v (ctx %v); want it to give up", err, ctx.Err())
	}
	if took := time.Since(start); took < quiet {
		t.Errorf("it gave up after %s, before the quiet time %s", took, quiet)
	}
}

// wsURL is the WebSocket address of a test server's /ws.
func wsURL(srv *httptest.Server) string { return "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws" }
