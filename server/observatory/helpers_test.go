package observatory_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/thoughtbox-bench/tbbench/server/events"
	"github.com/thoughtbox-bench/tbbench/server/observatory"
)

// start runs an Observatory behind a test HTTP server; change adjusts the
// default configuration.
func start(t testing.TB, change func(*observatory.Config)) (*observatory.Observatory, string) {
	t.Helper()
	cfg := observatory.Defaults()
	if change != nil {
		change(&cfg)
	}
	o, err := observatory.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(o)
	t.Cleanup(func() {
		_ = o.Close()
		ts.Close()
	})
	return o, ts.URL
}

// wsClient is a test WebSocket client.
type wsClient struct {
	t    testing.TB
	conn *websocket.Conn
}

func dial(t testing.TB, base string) *wsClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+observatory.DefaultPath, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	conn.SetReadLimit(1 << 22)
	t.Cleanup(func() { conn.CloseNow() })
	return &wsClient{t: t, conn: conn}
}

func (c *wsClient) sendRaw(s string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.conn.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

func (c *wsClient) send(topic, event string, payload any) {
	c.t.Helper()
	b, _ := json.Marshal([]any{topic, event, payload})
	c.sendRaw(string(b))
}

// frame is a received [topic, event, payload].
type frame struct {
	Topic, Event string
	Payload      json.RawMessage
	Raw          string
}

func (c *wsClient) next() frame {
	c.t.Helper()
	f, err := c.read(10 * time.Second)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return f
}

func (c *wsClient) read(wait time.Duration) (frame, error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, data, err := c.conn.Read(ctx)
	if err != nil {
		return frame{}, err
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(data, &parts); err != nil || len(parts) != 3 {
		c.t.Fatalf("frame is not [topic, event, payload]: %s", data)
	}
	f := frame{Payload: parts[2], Raw: string(data)}
	_ = json.Unmarshal(parts[0], &f.Topic)
	_ = json.Unmarshal(parts[1], &f.Event)
	return f, nil
}

// expect reads the next frame and compares it with want, a compact JSON
// text of the whole frame.
func (c *wsClient) expect(want string) frame {
	c.t.Helper()
	f := c.next()
	if f.Raw != want {
		c.t.Fatalf("frame\n got %s\nwant %s", f.Raw, want)
	}
	return f
}

// expectEvent reads the next frame and checks its topic and event.
func (c *wsClient) expectEvent(topic, event string) frame {
	c.t.Helper()
	f := c.next()
	if f.Topic != topic || f.Event != event {
		c.t.Fatalf("frame %s, want topic %q event %q", f.Raw, topic, event)
	}
	return f
}

var at = time.Date(2026, 11, 22, 7, 57, 9, 713_000_000, time.UTC)

func sessionStarted(sid, title string, tags ...string) events.Event {
	return events.Event{Type: events.SessionStarted, Timestamp: at, SessionID: sid,
		Data: events.SessionStartedData{SessionID: sid, Title: title, Tags: tags, CreatedAt: "2026-11-22T07:57:09.713Z"}}
}

// thought is a thought_added event as the ledger emits it.
type thought struct {
	n, total             int
	text                 string
	next                 bool
	revises, branchFrom  int
	branch               string
	sessionThoughtsAfter int
}

func (th thought) event(sid string) events.Event {
	var branch *string
	if th.branch != "" {
		branch = &th.branch
	}
	return events.Event{Type: events.ThoughtAdded, Timestamp: at, SessionID: sid,
		Data: events.ThoughtAddedData{ThoughtNumber: th.n, Thought: events.Preview(th.text), NextThoughtNeeded: th.next, BranchID: branch,
			Detail: &events.ThoughtDetail{Text: th.text, TotalThoughts: th.total, Timestamp: "2026-11-22T07:57:10.000Z",
				IsRevision: th.revises > 0, RevisesThought: th.revises, BranchFromThought: th.branchFrom, SessionThoughts: th.sessionThoughtsAfter}}}
}
