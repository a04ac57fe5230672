package mcpserver_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// rpcAnswer is a JSON-RPC error response as the tests read it.
type rpcAnswer struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// framingCases are malformed JSON-RPC messages with the id and error code
// of the answer JSON-RPC 2.0 requires.
var framingCases = []struct {
	name, body, id string
	code           int
}{
	{"an id without a method", `{"jsonrpc":"2.0","id":7}`, "7", -32600},
	{"a null id", `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, "null", -32600},
	{"a JSON null", `null`, "null", -32600},
	{"a number", `42`, "null", -32600},
	{"not JSON", `{"jsonrpc":`, "null", -32700},
}

// TestJSONRPCFramingOverHTTP posts malformed messages in a live MCP session:
// each gets a JSON-RPC error with the right id (a request without a method
// got 202 and no answer, a null id was taken for a notification, a null
// body got 200).
func TestJSONRPCFramingOverHTTP(t *testing.T) {
	_, url := newHTTPServer(t, testConfig(t, "memory"))
	m := dialHTTP(t, url)
	for _, c := range framingCases {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", m.c.GetSessionId())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var a rpcAnswer
		if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(body, &a) != nil || a.Error == nil ||
			a.Error.Code != c.code || string(a.ID) != c.id {
			t.Errorf("%s: HTTP %d %s, want 400 with error %d and id %s", c.name, resp.StatusCode, body, c.code, c.id)
		}
	}
}

// stdioChild is the thoughtbox binary speaking stdio, driven line by line.
type stdioChild struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader
}

func startStdio(t *testing.T, env ...string) *stdioChild {
	t.Helper()
	cmd := exec.Command(thoughtboxBinary(t))
	cmd.Env = append(os.Environ(), append(env, "THOUGHTBOX_TRANSPORT=stdio", "DISABLE_THOUGHT_LOGGING=true", "THOUGHTBOX_DATA_DIR="+t.TempDir())...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c := &stdioChild{t: t, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	c.read()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *stdioChild) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// read returns the next message the child writes (within 10 s).
func (c *stdioChild) read() rpcAnswer {
	c.t.Helper()
	type res struct {
		line []byte
		err  error
	}
	ch := make(chan res, 1)
	go func() { l, err := c.out.ReadBytes('\n'); ch <- res{l, err} }()
	select {
	case r := <-ch:
		var a rpcAnswer
		if r.err != nil || json.Unmarshal(r.line, &a) != nil {
			c.t.Fatalf("reading the child's answer: %v %q", r.err, r.line)
		}
		return a
	case <-time.After(10 * time.Second):
		c.t.Fatal("no answer from the child within 10 s")
	}
	return rpcAnswer{}
}

// TestJSONRPCFramingOverStdio sends the same malformed messages over stdio,
// then a request too large (the HTTP body limit applies to lines too): each
// gets its error, and the connection keeps working.
func TestJSONRPCFramingOverStdio(t *testing.T) {
	c := startStdio(t, "THOUGHTBOX_MAX_BODY_BYTES=65536")
	for _, fc := range framingCases {
		c.send(fc.body)
		a := c.read()
		if a.Error == nil || a.Error.Code != fc.code || string(a.ID) != fc.id {
			t.Errorf("%s: answer id %s error %+v, want error %d with id %s", fc.name, a.ID, a.Error, fc.code, fc.id)
		}
	}
	big := `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"thought","args":{"thought":"` +
		strings.Repeat("x", 200000) + `","nextThoughtNeeded":true}}}}`
	c.send(big)
	if a := c.read(); a.Error == nil || string(a.ID) != `"big"` || !strings.Contains(a.Error.Message, "65536") {
		t.Errorf("a 200 kB line over a 64 KiB limit: id %s error %+v", a.ID, a.Error)
	}
	c.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if a := c.read(); string(a.ID) != "9" || a.Error != nil {
		t.Errorf("ping after the refused line: id %s error %+v", a.ID, a.Error)
	}
}

// TestStdioSizeLimit sends a thought over the default 4 MiB limit through an
// MCP client over stdio: it is refused as over HTTP (it used to be stored).
func TestStdioSizeLimit(t *testing.T) {
	m := dialStdio(t, "THOUGHTBOX_DATA_DIR="+t.TempDir())
	m.ready()
	_, err := m.callRaw("thought", map[string]any{"thought": strings.Repeat("x", 5<<20), "nextThoughtNeeded": true})
	if err == nil || !strings.Contains(err.Error(), "4194304") {
		t.Fatalf("a 5 MiB thought over stdio: %v", err)
	}
	if r := m.gateway("thought", map[string]any{"thought": "small", "nextThoughtNeeded": true}); r.IsError {
		t.Errorf("the connection broke after the refused call: %s", r.Text)
	}
}
