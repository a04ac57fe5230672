package brokenserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestLosesThoughtsAnswersInTheUpstreamsContentType puts the proxy in front
// of a fake upstream that answers tools/call as an event stream: the
// acknowledgement the proxy makes up must be an event stream too, carry the
// request's id and name the reasoning session the upstream reported.
func TestLosesThoughtsAnswersInTheUpstreamsContentType(t *testing.T) {
	var forwarded atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Arguments struct {
					Args map[string]any `json:"args"`
				} `json:"arguments"`
			} `json:"params"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		forwarded.Add(1)
		text, _ := json.Marshal(map[string]any{"thoughtNumber": req.Params.Arguments.Args["thoughtNumber"], "sessionId": "reasoning-1"})
		data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID,
			"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": string(text)}}}})
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", data)
	}))
	defer upstream.Close()
	p, err := New(upstream.URL+"/mcp", LosesThoughts, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(p)
	defer proxy.Close()

	for i := 1; i <= LoseEvery; i++ {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":"req-%d","method":"tools/call","params":{"name":"thoughtbox_gateway",`+
			`"arguments":{"operation":"thought","args":{"thought":"t","thoughtNumber":%d,"totalThoughts":9,"nextThoughtNeeded":true}}}}`, i, i)
		req, _ := http.NewRequest(http.MethodPost, proxy.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", "mcp-1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
			t.Fatalf("thought %d: status %d, content type %q", i, resp.StatusCode, ct)
		}
		msgs := rpcMessages(raw, true)
		if len(msgs) != 1 {
			t.Fatalf("thought %d: %d messages in %q", i, len(msgs), raw)
		}
		var ans struct {
			ID     string `json:"id"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(msgs[0], &ans); err != nil || len(ans.Result.Content) != 1 {
			t.Fatalf("thought %d: %v %s", i, err, msgs[0])
		}
		var ack map[string]any
		_ = json.Unmarshal([]byte(ans.Result.Content[0].Text), &ack)
		if ans.ID != fmt.Sprintf("req-%d", i) || ack["thoughtNumber"] != float64(i) || ack["sessionId"] != "reasoning-1" {
			t.Errorf("thought %d answered %s", i, msgs[0])
		}
	}
	if got := forwarded.Load(); got != LoseEvery-1 {
		t.Errorf("%d thoughts reached the upstream, want %d", got, LoseEvery-1)
	}
}

func TestRPCMessagesReadsEveryEvent(t *testing.T) {
	body := "event: message\r\ndata: {\"a\":1}\r\n\r\n: comment\n\nid: 7\ndata: {\"b\":\ndata: 2}\n"
	got := rpcMessages([]byte(body), true)
	if len(got) != 2 || string(got[0]) != `{"a":1}` || string(got[1]) != "{\"b\":\n2}" {
		t.Fatalf("rpcMessages = %q", got)
	}
}
