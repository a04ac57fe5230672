package sidecar

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// stdioServerCmd is the test binary as a stdio MCP server.
func stdioServerCmd() *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), stdioServerEnv+"=1")
	return cmd
}

// lineDriver speaks newline-delimited JSON-RPC to a server: it writes one
// message and, for a request, reads lines up to the answer with its id.
type lineDriver struct {
	w io.Writer
	r *bufio.Reader
}

func (d *lineDriver) send(t *testing.T, line, id string) []string {
	t.Helper()
	if _, err := io.WriteString(d.w, line+"\n"); err != nil {
		t.Fatal(err)
	}
	if id == "" {
		return nil
	}
	var got []string
	for {
		l, err := d.r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading answer to %s: %v (got %q)", id, err, got)
		}
		got = append(got, l)
		if strings.Contains(l, `"id":`+id+`,`) && !strings.Contains(l, `"method"`) {
			return got
		}
	}
}

var stdioScript = []struct{ line, id string }{
	{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, "1"},
	{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
	{`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "2"},
	{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"cipher"}}}`, "3"},
	{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"start_new","args":{"newWork":{"project":"p"}}}}}`, "4"},
	{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"cipher"}}}`, "5"},
	{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"thoughtbox_gateway","arguments":{"operation":"thought","args":{"thought":"t","nextThoughtNeeded":true}}}}`, "6"},
	{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress_steps","arguments":{"steps":3},"_meta":{"progressToken":"p"}}}`, "7"},
	{`{"jsonrpc":"2.0","id":8,"method":"no/such"}`, "8"},
	{`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"test://greeting"}}`, "9"},
}

func runScript(t *testing.T, d *lineDriver) []string {
	var out []string
	for _, s := range stdioScript {
		out = append(out, d.send(t, s.line, s.id)...)
		if s.id == "" {
			time.Sleep(20 * time.Millisecond) // let a notification land before the next request
		}
	}
	return out
}

// TestStdioTransparentAndMeasured runs the same script against the server
// directly and through the stdio proxy (with its probe pinging): the client
// must read the same lines, none of the probe's, and the proxy must count
// what passed. The answers and the notifications are each compared in
// order, not how the two interleave: mcp-go's stdio server writes
// notifications from a goroutine of their own, so a progress notification
// can come before or after the answers that follow it, from run to run.
// (TestStdioKeepsTheServersOrder shows that the proxy keeps the order a
// server writes.)
func TestStdioTransparentAndMeasured(t *testing.T) {
	direct := stdioServerCmd()
	din, _ := direct.StdinPipe()
	dout, _ := direct.StdoutPipe()
	if err := direct.Start(); err != nil {
		t.Fatal(err)
	}
	want := runScript(t, &lineDriver{din, bufio.NewReader(dout)})
	din.Close()
	if err := direct.Wait(); err != nil {
		t.Fatal(err)
	}

	p, err := NewStdio(Config{ServerName: "stdio", ProbeInterval: 20 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, stdioServerCmd())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	metrics := httptest.NewServer(p.Handler())
	defer metrics.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- p.Run(context.Background(), inR, outW)
		outW.Close()
	}()
	d := &lineDriver{inW, bufio.NewReader(outR)}
	got := runScript(t, d)
	for i, kind := range []string{"answers", "notifications"} {
		if w, g := byKind(want)[i], byKind(got)[i]; !slices.Equal(w, g) {
			t.Errorf("stdio %s differ:\ndirect: %q\nproxy:  %q", kind, w, g)
		}
	}
	if len(got) < len(stdioScript) {
		t.Fatalf("only %d lines", len(got))
	}
	waitFor(t, "a probe answered", func() bool {
		return hasSeries(t, scrape(t, metrics.URL), `mcp_sidecar_upstream_check_duration_seconds_count{result="ok",server_name="stdio"}`)
	})
	if code, rep := health(t, metrics.URL); code != 200 || rep.Upstream != "up" {
		t.Errorf("/healthz while running: %d %+v", code, rep)
	}
	// Probe answers stay in the proxy: the next client request's answer is
	// the next line the client reads.
	next := d.send(t, `{"jsonrpc":"2.0","id":10,"method":"ping"}`, "10")
	if len(next) != 1 || strings.Contains(strings.Join(next, ""), "probe") {
		t.Errorf("client read %q after probes", next)
	}
	// A 2026-era request names its protocol version in its _meta: its
	// series carries that version, not the one initialize negotiated.
	d.send(t, `{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, "11")
	m := scrape(t, metrics.URL)
	versionOf := func(method string) (versions []string) {
		for _, s := range samples(t, m) {
			if s.name == "mcp_server_operation_duration_seconds_count" && s.labels["mcp_method_name"] == method {
				versions = append(versions, s.labels["mcp_protocol_version"])
			}
		}
		return versions
	}
	if !slices.Contains(versionOf("tools/list"), "2026-07-28") ||
		!slices.ContainsFunc(versionOf("initialize"), func(v string) bool { return strings.HasPrefix(v, "2025-") }) {
		t.Errorf("no tools/list series of 2026-07-28 beside initialize's 2025 one:\n%s", grepLines(m, "mcp_server_operation_duration_seconds_count"))
	}

	c := p.Counts()
	for k, n := range map[MethodStatus]int64{
		{"initialize", outcome.OK}: 1, {"tools/list", outcome.OK}: 1, {"tools/list", outcome.Error}: 1, {"tools/call", outcome.OK}: 4,
		{"tools/call", outcome.ToolError}: 1, {Other, outcome.Error}: 1, {"resources/read", outcome.OK}: 1, {"ping", outcome.OK}: 1,
	} {
		if c.Requests[k] != n {
			t.Errorf("%+v = %d, want %d (all %v)", k, c.Requests[k], n, c.Requests)
		}
	}
	for k, n := range map[ToolCall]int64{{"thoughtbox_gateway", "thought", outcome.OK}: 1, {"thoughtbox_gateway", "cipher", outcome.ToolError}: 1} {
		if c.ToolCalls[k] != n {
			t.Errorf("%+v = %d, want %d (all %v)", k, c.ToolCalls[k], n, c.ToolCalls)
		}
	}
	if n := c.Notifications[Notification{"notifications/progress", DirectionOut}]; n != 3 {
		t.Errorf("progress notifications %d, want 3", n)
	}
	wantSeries(t, scrape(t, metrics.URL), `mcp_sidecar_active_sessions{server_name="stdio"} 1`)

	inW.Close() // the client leaves: the server's stdin closes and it exits
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not exit after its stdin closed")
	}
	if code, _ := health(t, metrics.URL); code != 503 {
		t.Errorf("/healthz after exit: %d, want 503", code)
	}
	wantSeries(t, scrape(t, metrics.URL), `mcp_sidecar_active_sessions{server_name="stdio"} 0`)
}

// byKind splits the lines a client read into the answers and the
// notifications, each in the order read.
func byKind(lines []string) [2][]string {
	var out [2][]string
	for _, l := range lines {
		i := 0
		if parseMessage([]byte(l)).kind == kindNotification {
			i = 1
		}
		out[i] = append(out[i], l)
	}
	return out
}

// TestStdioKeepsTheServersOrder: a server that writes a notification
// before each answer, to requests the client sends all at once; the client
// reads every line in the order the server wrote it.
func TestStdioKeepsTheServersOrder(t *testing.T) {
	const n = 50
	p, err := NewStdio(Config{ServerName: "stdio", ProbeInterval: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		exec.Command("sh", "-c", `n=0; while read -r line; do n=$((n+1)); `+
			`printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%d}}\n{"jsonrpc":"2.0","id":%d,"result":{}}\n' $n $n; done`))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var requests, want strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&requests, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
		fmt.Fprintf(&want, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%d}}`+"\n"+`{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", i, i)
	}
	var out strings.Builder
	if err := p.Run(context.Background(), strings.NewReader(requests.String()), &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != want.String() {
		t.Errorf("the client read:\n%s\nthe server wrote:\n%s", out.String(), want.String())
	}
	if got := p.Counts().Requests[MethodStatus{"ping", outcome.OK}]; got != n {
		t.Errorf("%d pings counted, want %d", got, n)
	}
}

// TestStdioServerExit checks that Run returns the server's exit status and
// fails requests left unanswered.
func TestStdioServerExit(t *testing.T) {
	p, err := NewStdio(Config{ServerName: "stdio", ProbeInterval: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		exec.Command("sh", "-c", "read line; exit 3"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	err = p.Run(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"), io.Discard)
	var exit *exec.ExitError
	if err == nil || !errorsAs(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("Run = %v, want exit status 3", err)
	}
	if n := p.Counts().Requests[MethodStatus{"ping", outcome.Error}]; n != 1 {
		t.Errorf("unanswered ping counted %d times as error, want 1", n)
	}
}

// TestNewStdioRejectsOwnedStreams checks the command contract.
func TestNewStdioRejectsOwnedStreams(t *testing.T) {
	cmd := exec.Command("true")
	cmd.Stdout = io.Discard
	if _, err := NewStdio(Config{}, cmd); err == nil {
		t.Error("accepted a command whose stdout is taken")
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
