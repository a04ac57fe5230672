package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

// The answer to a request carries its id exactly as the client wrote it,
// including numbers no float64 holds exactly, over HTTP and stdio.
func TestRequestIDsAreEchoedAsWritten(t *testing.T) {
	ids := []string{`12345678901234567890`, `-7`, `1.50`, `1e3`, `"x"`, `"é\u00e9"`}
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	h := rawHTTP{t, url}
	sid := openRawSession(t, h)
	for _, id := range ids {
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`,
			gatewayCall(id, `{"operation":"cipher"}`),
		} {
			_, answer := h.do(http.MethodPost, sid, body, nil)
			if !strings.HasPrefix(answer, `{"jsonrpc":"2.0","id":`+id+`,"result":`) {
				t.Errorf("HTTP %s: %.120s", body, answer)
			}
		}
	}

	var in strings.Builder
	in.WriteString(initBody + "\n")
	for _, id := range ids {
		in.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}` + "\n")
	}
	for _, line := range serveStdioLines(t, in.String()) {
		if strings.Contains(line, `"tools":[`) && !strings.Contains(line, `"id":1,`) {
			ok := false
			for _, id := range ids {
				ok = ok || strings.HasPrefix(line, `{"jsonrpc":"2.0","id":`+id+`,"result":`)
			}
			if !ok {
				t.Errorf("stdio: %.120s", line)
			}
		}
	}
}

// serveStdioLines runs a stdio connection that sends in and closes its
// input, and returns every line the server wrote.
func serveStdioLines(t *testing.T, in string) []string {
	t.Helper()
	srv, err := mcpserver.New(testConfig(t, "memory"), mcpserver.WithLogger(discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var out bytes.Buffer
	if err := srv.ServeStdio(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// A client that writes its calls and closes its input at once gets every
// one of them answered, in order: nothing it sent is dropped.
func TestStdioAnswersEverythingReadBeforeTheInputEnds(t *testing.T) {
	var in strings.Builder
	in.WriteString(initBody + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	in.WriteString(gatewayCall("2", `{"operation":"start_new","args":{"newWork":{"project":"p"}}}`) + "\n")
	in.WriteString(gatewayCall("3", `{"operation":"cipher"}`) + "\n")
	const thoughts = 40
	for i := 1; i <= thoughts; i++ {
		in.WriteString(gatewayCall(fmt.Sprint(100+i), fmt.Sprintf(`{"operation":"thought","args":{"thought":"t%d","nextThoughtNeeded":true}}`, i)) + "\n")
	}
	next := 1
	for _, line := range serveStdioLines(t, in.String()) {
		var m struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
				IsError bool                    `json:"isError"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || m.ID <= 100 {
			continue
		}
		if m.ID != 100+next || m.Result.IsError || len(m.Result.Content) == 0 ||
			!strings.Contains(m.Result.Content[0].Text, fmt.Sprintf(`"thoughtNumber": %d`, next)) {
			t.Fatalf("answer %d: %.200s", next, line)
		}
		next++
	}
	if next != thoughts+1 {
		t.Errorf("%d of %d thoughts answered", next-1, thoughts)
	}
}

// A JSON-RPC batch is refused with -32600 (MCP has none since 2025-06-18),
// over HTTP and over stdio, where the connection goes on.
func TestABatchIsRefused(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	h := rawHTTP{t, url}
	sid := openRawSession(t, h)
	batch := "[" + `{"jsonrpc":"2.0","id":5,"method":"tools/list"}` + "]"
	if resp, body := h.do(http.MethodPost, sid, batch, nil); resp.StatusCode != 400 || !strings.Contains(body, `"code":-32600`) {
		t.Errorf("HTTP batch: %d %s", resp.StatusCode, body)
	}
	lines := serveStdioLines(t, batch+"\n"+initBody+"\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"code":-32600`) || !strings.Contains(lines[1], `"protocolVersion"`) {
		t.Errorf("stdio batch, then initialize: %q", lines)
	}
}

// What mcp-go sends a session outside any request (a broadcast) reaches the
// session's standalone GET stream; a second GET on the session is refused
// while the first is open, and DELETE ends the stream.
func TestTheStandaloneStreamCarriesBroadcasts(t *testing.T) {
	srv, url := newHTTPServer(t, testConfig(t, "memory"))
	h := rawHTTP{t, url}
	sid := openRawSession(t, h)
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if second, body := h.do(http.MethodGet, sid, "", nil); second.StatusCode != http.StatusConflict {
		t.Errorf("a second GET: %d %s", second.StatusCode, body)
	}
	events := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- data
			}
		}
		close(events)
	}()
	srv.Broadcast("notifications/tools/list_changed")
	select {
	case e := <-events:
		if !strings.Contains(e, `"method":"notifications/tools/list_changed"`) {
			t.Errorf("event: %s", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the broadcast did not reach the GET stream")
	}
	if del, body := h.do(http.MethodDelete, sid, "", nil); del.StatusCode != 200 {
		t.Fatalf("DELETE: %d %s", del.StatusCode, body)
	}
	select {
	case _, open := <-events:
		if open {
			t.Error("an event after DELETE")
		}
	case <-time.After(5 * time.Second):
		t.Error("the GET stream stayed open after DELETE")
	}
}
