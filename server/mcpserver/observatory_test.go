package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

func TestObservatorySettingsErrOnlyWhenEnabled(t *testing.T) {
	bad := map[string]string{"THOUGHTBOX_OBSERVATORY_PORT": "nan", "THOUGHTBOX_OBSERVATORY_MAX_CONN": "0", "THOUGHTBOX_OBSERVATORY_HTTP_API": "perhaps",
		"THOUGHTBOX_OBSERVATORY_WRITE_TIMEOUT": "0s"}
	lookup := func(extra map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			if v, ok := extra[k]; ok {
				return v, true
			}
			v, ok := bad[k]
			return v, ok
		}
	}
	cfg, err := mcpserver.FromEnv(testConfig(t, "memory"), lookup(nil))
	if err != nil {
		t.Fatalf("bad observatory values with the observatory off: %v", err)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("bad observatory values with the observatory off refused: %v", err)
	}
	cfg, err = mcpserver.FromEnv(testConfig(t, "memory"), lookup(map[string]string{"THOUGHTBOX_OBSERVATORY_ENABLED": "true"}))
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.Validate()
	for _, want := range []string{"THOUGHTBOX_OBSERVATORY_PORT", `"nan"`, "THOUGHTBOX_OBSERVATORY_MAX_CONN", "THOUGHTBOX_OBSERVATORY_HTTP_API", "THOUGHTBOX_OBSERVATORY_WRITE_TIMEOUT"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("enabled with bad values: error %v, want it to name %s", err, want)
		}
	}
	if _, err := mcpserver.New(cfg, mcpserver.WithLogger(discardLogger())); err == nil {
		t.Error("New accepted the bad values")
	}
	if _, err := mcpserver.FromEnv(testConfig(t, "memory"), lookup(map[string]string{"THOUGHTBOX_OBSERVATORY_ENABLED": "yes"})); err == nil {
		t.Error("THOUGHTBOX_OBSERVATORY_ENABLED=yes accepted: only true and false are")
	}
}

// observatoryConfig turns the Observatory on, on a free loopback port.
func observatoryConfig(t *testing.T) mcpserver.Config {
	cfg := testConfig(t, "memory")
	cfg.Observatory.Enabled = true
	cfg.Observatory.Port = 0
	return cfg
}

func TestObservatoryFedByMCPThoughts(t *testing.T) {
	cfg := observatoryConfig(t)
	cfg.Observatory.Path = "/live"
	srv, url := newHTTPServer(t, cfg)
	addr := srv.ObservatoryAddr()
	if addr == nil || !strings.HasPrefix(addr.String(), "127.0.0.1:") {
		t.Fatalf("observatory address %v, want one on HOST 127.0.0.1", addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+addr.String()+"/live", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	read := func() []json.RawMessage {
		t.Helper()
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var f []json.RawMessage
		if json.Unmarshal(b, &f) != nil || len(f) != 3 {
			t.Fatalf("frame %s", b)
		}
		return f
	}
	_ = ws.Write(ctx, websocket.MessageText, []byte(`["observatory","subscribe",{}]`))
	read()
	read()
	m := dialHTTP(t, url)
	m.ready()
	long := strings.Repeat("long ", 40) // the JSONL preview cuts it, the Observatory must not
	m.gateway("thought", map[string]any{"thought": long, "thoughtNumber": 1, "totalThoughts": 2, "nextThoughtNeeded": true, "sessionTitle": "watched", "sessionTags": []string{"obs"}})
	f := read()
	if string(f[1]) != `"session:started"` || !strings.Contains(string(f[2]), `"title":"watched","tags":["obs"]`) {
		t.Fatalf("first frame %s %s", f[1], f[2])
	}
	var started struct {
		Session struct{ ID, CreatedAt string }
	}
	_ = json.Unmarshal(f[2], &started)
	f = read()
	if string(f[1]) != `"thought:added"` || !strings.Contains(string(f[2]), `"thought":"`+long+`"`) || !strings.Contains(string(f[2]), `"totalThoughts":2`) {
		t.Fatalf("thought frame %s %s", f[1], f[2])
	}
	m.gateway("thought", map[string]any{"thought": "end", "thoughtNumber": 2, "totalThoughts": 2, "nextThoughtNeeded": false})
	read() // thought:added
	if f = read(); string(f[1]) != `"session:ended"` || string(f[2]) != `{"sessionId":"`+started.Session.ID+`","finalThoughtCount":2}` {
		t.Fatalf("end frame %s %s", f[1], f[2])
	}
	res, err := http.Get("http://" + addr.String() + "/api/sessions/" + started.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), `"status":"completed"`) || started.Session.CreatedAt == "" {
		t.Errorf("REST session: %d %s", res.StatusCode, body)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get("http://" + addr.String() + "/api/health"); err == nil {
		t.Error("the Observatory still answers after the server closed")
	}
}
