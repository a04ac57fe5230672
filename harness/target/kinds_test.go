package target_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/noop"
	"github.com/thoughtbox-bench/tbbench/harness/target/sidecarfront"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// session opens an MCP session with tg, starts a reasoning session and
// records one thought; it returns the connection and the session id.
func session(t *testing.T, tg target.Target) (*target.Conn, string) {
	t.Helper()
	ctx := context.Background()
	c, err := target.Connect(ctx, tg, transcript.Discard(), target.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	res, err := c.Gateway(ctx, "start_new", map[string]any{"newWork": map[string]any{"project": "target-test"}})
	if err != nil || res.IsError {
		t.Fatalf("start_new: %v %s", err, res.Text())
	}
	if res, err = c.Gateway(ctx, "cipher", nil); err != nil || res.IsError {
		t.Fatalf("cipher: %v %s", err, res.Text())
	}
	res, err = c.Gateway(ctx, "thought", map[string]any{"thought": "kept across restarts", "thoughtNumber": 1, "totalThoughts": 3, "nextThoughtNeeded": true})
	if err != nil || res.IsError {
		t.Fatalf("thought: %v %s", err, res.Text())
	}
	m, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	id, _ := m["sessionId"].(string)
	if id == "" {
		t.Fatalf("no session id in %s", res.Text())
	}
	return c, id
}

// readBack reads thought 1 of session id on a new MCP session.
func readBack(t *testing.T, tg target.Target, id string) string {
	t.Helper()
	ctx := context.Background()
	c, err := target.Connect(ctx, tg, transcript.Discard(), target.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, op := range []string{"load_context", "cipher"} {
		if res, err := c.Gateway(ctx, op, map[string]any{"sessionId": id}); err != nil || res.IsError {
			t.Fatalf("%s: %v %s", op, err, res.Text())
		}
	}
	res, err := c.Gateway(ctx, "read_thoughts", map[string]any{"sessionId": id, "thoughtNumber": 1})
	if err != nil || res.IsError {
		t.Fatalf("read_thoughts: %v %s", err, res.Text())
	}
	return res.Text()
}

func TestEmbeddedInProcessRestartKeepsData(t *testing.T) {
	tg, err := embedded.New(context.Background(), embedded.Options{Storage: "fs"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	c, id := session(t, tg)
	c.Close()
	r := tg.(target.Restarter)
	if err := r.Restart(context.Background(), true); !errors.Is(err, embedded.ErrCannotKill) {
		t.Fatalf("kill of an in-process server: %v", err)
	}
	if err := r.Restart(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, tg, id); !strings.Contains(got, "kept across restarts") {
		t.Fatalf("after restart: %s", got)
	}
	if info := tg.Info(); info.Kind != target.KindEmbedded || info.DataDir == "" || info.Storage != "fs" {
		t.Errorf("info %+v", info)
	}
}

// TestEmbeddedChildKilled kills the child HTTP server with SIGKILL after an
// acknowledged thought; the restarted child reads it back.
func TestEmbeddedChildKilled(t *testing.T) {
	tg, err := embedded.New(context.Background(), embedded.Options{Storage: "fs", Process: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	pid := tg.(target.Processer).PID()
	if pid == 0 || pid == os.Getpid() {
		t.Fatalf("pid %d", pid)
	}
	c, id := session(t, tg)
	c.Close()
	if err := tg.(target.Restarter).Restart(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	if p := tg.(target.Processer).PID(); p == pid || p == 0 {
		t.Fatalf("the restarted child has pid %d (before %d)", p, pid)
	}
	if got := readBack(t, tg, id); !strings.Contains(got, "kept across restarts") {
		t.Fatalf("after kill -9 and restart: %s", got)
	}
}

func TestEmbeddedStdioChild(t *testing.T) {
	tg, err := embedded.New(context.Background(), embedded.Options{Transport: target.Stdio, Storage: "fs"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if tg.HTTPBase() != "" {
		t.Fatalf("a stdio target has an HTTP base %q", tg.HTTPBase())
	}
	c, id := session(t, tg)
	c.Close()
	// Each stdio session is a new process on the same data dir.
	if got := readBack(t, tg, id); !strings.Contains(got, "kept across restarts") {
		t.Fatalf("second process: %s", got)
	}
}

func TestCommandThatExitsIsReported(t *testing.T) {
	_, err := target.NewCommand(context.Background(), target.CommandOptions{Command: "sh -c 'echo broken config >&2; exit 3'", Transport: target.HTTP})
	if !errors.Is(err, target.ErrUnreachable) || !strings.Contains(err.Error(), "broken config") {
		t.Fatalf("got %v", err)
	}
	_, err = target.NewCommand(context.Background(), target.CommandOptions{Command: "sleep 5", Transport: target.HTTP, StartTimeout: 300 * time.Millisecond})
	if !errors.Is(err, target.ErrUnreachable) || !strings.Contains(err.Error(), "did not accept connections") {
		t.Fatalf("got %v", err)
	}
	if _, err := target.NewCommand(context.Background(), target.CommandOptions{Command: "  "}); err == nil {
		t.Fatal("empty command accepted")
	}
}

// A stdio command that never answers (an HTTP server started without
// --transport http waits for HTTP) times out with a hint at the transport;
// other errors carry none.
func TestSilentStdioCommandNamesTheTransport(t *testing.T) {
	if err := connectStdio(t, "sleep 30", 500*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "--transport http") {
		t.Fatalf("silent stdio command: %v; want a deadline with a hint at --transport http", err)
	}
	if err := connectStdio(t, "sh -c 'exit 3'", 20*time.Second); err == nil || strings.Contains(err.Error(), "--transport http") {
		t.Fatalf("stdio command that exits: %v; want an error without the transport hint", err)
	}
}

// connectStdio connects to command over stdio within d and returns the
// error.
func connectStdio(t *testing.T, command string, d time.Duration) error {
	t.Helper()
	tg, err := target.NewCommand(context.Background(), target.CommandOptions{Command: command, Transport: target.Stdio})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	c, err := target.Connect(ctx, tg, transcript.Discard(), target.ConnOptions{})
	if err == nil {
		c.Close()
	}
	return err
}

func TestCommandInfoFromEnv(t *testing.T) {
	tg, err := target.NewCommand(context.Background(), target.CommandOptions{Command: "server --port {port}",
		Env: []string{"THOUGHTBOX_DATA_DIR=/d", "THOUGHTBOX_STORAGE=memory"}, Transport: target.Stdio})
	if err != nil {
		t.Fatal(err)
	}
	info := tg.Info()
	if info.DataDir != "/d" || info.Storage != "memory" || info.ExportDir != "/d/exports" || strings.Contains(info.Address, "{port}") {
		t.Errorf("info %+v", info)
	}
}

func TestURLUnreachableNamesAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = target.NewURL(context.Background(), "http://"+addr+"/mcp", target.URLOptions{ProbeTimeout: time.Second})
	if !errors.Is(err, target.ErrUnreachable) || !strings.Contains(err.Error(), addr) {
		t.Fatalf("got %v", err)
	}
}

func TestNoopAnswers(t *testing.T) {
	for _, process := range []bool{false, true} {
		tg, err := noop.New(context.Background(), noop.Options{Process: process})
		if err != nil {
			t.Fatal(err)
		}
		c, err := target.Connect(context.Background(), tg, transcript.Discard(), target.ConnOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Gateway(context.Background(), "thought", map[string]any{"thought": "x", "thoughtNumber": 7})
		if err != nil || res.IsError {
			t.Fatalf("process %v: %v %s", process, err, res.Text())
		}
		if m, _ := res.JSON(); m["thoughtNumber"] != 7.0 {
			t.Errorf("process %v: %s", process, res.Text())
		}
		c.Close()
		if info := tg.Info(); info.Kind != target.KindNoop {
			t.Errorf("info %+v", info)
		}
		tg.Close()
	}
}

// TestSidecarCountsAndBypass checks that the decorator counts the traffic
// sent through it and none sent directly, over HTTP and stdio.
func TestSidecarCountsAndBypass(t *testing.T) {
	for _, tr := range []string{target.HTTP, target.Stdio} {
		t.Run(tr, func(t *testing.T) {
			inner, err := embedded.New(context.Background(), embedded.Options{Transport: tr, Storage: "memory"})
			if err != nil {
				t.Fatal(err)
			}
			f, err := sidecarfront.Wrap(inner)
			if err != nil {
				inner.Close()
				t.Fatal(err)
			}
			defer f.Close()
			if target.Unwrap(f) != inner {
				t.Fatal("Unwrap does not reach the inner target")
			}
			ctx := context.Background()
			for _, direct := range []bool{false, true} {
				c, err := target.Connect(ctx, f, transcript.Discard(), target.ConnOptions{Direct: direct})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.Gateway(ctx, "get_state", nil); err != nil {
					t.Fatal(err)
				}
				c.Close()
			}
			// The count of a request lands just after its answer.
			var n int64
			for deadline := time.Now().Add(5 * time.Second); n < 1 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				n = f.Counts().Method("tools/call")
			}
			time.Sleep(100 * time.Millisecond)
			if n = f.Counts().Method("tools/call"); n != 1 {
				t.Errorf("sidecar counted %d tools/call, want 1 (the direct one must bypass it)", n)
			}
		})
	}
}

func TestSpecValidate(t *testing.T) {
	for _, s := range []targetspec.Spec{
		{URL: "http://x/mcp", Noop: true},
		{Transport: "carrier-pigeon"},
		{Storage: "tape"},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	if k := (targetspec.Spec{Command: "x", URL: "http://127.0.0.1:{port}/mcp"}).Kind(); k != target.KindCommand {
		t.Errorf("kind %s", k)
	}
}

// TestStdioKillStopsRunningSessions kills the processes of the stdio
// sessions still open; the next session is a new process on the same data.
func TestStdioKillStopsRunningSessions(t *testing.T) {
	tg, err := embedded.New(context.Background(), embedded.Options{Transport: target.Stdio, Storage: "fs"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	c, id := session(t, tg)
	if !target.CanKill(tg) {
		t.Fatal("a stdio child can be killed")
	}
	stopped := false
	if err := tg.(target.StoppedRestarter).RestartWhileStopped(context.Background(), true, func() error { stopped = true; return nil }); err != nil || !stopped {
		t.Fatalf("restart: %v, ran while stopped: %v", err, stopped)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.Gateway(ctx, "read_thoughts", map[string]any{"sessionId": id}); err == nil {
		t.Fatal("the killed session's process still answers")
	}
	if got := readBack(t, tg, id); !strings.Contains(got, "kept across restarts") {
		t.Fatalf("after the kill: %s", got)
	}
}

// TestSiblingSharesTheData starts a second process of the embedded server
// on the same data: it reads what the first wrote before it started.
func TestSiblingSharesTheData(t *testing.T) {
	for _, o := range []embedded.Options{{Storage: "fs"}, {Storage: "fs", Process: true}} {
		tg, err := embedded.New(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		defer tg.Close()
		c, id := session(t, tg)
		c.Close()
		if err := tg.(target.Restarter).Restart(context.Background(), false); err != nil {
			t.Fatal(err)
		}
		sib, err := tg.(target.Sibling).Sibling(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if sib.HTTPBase() == tg.HTTPBase() || sib.Info().DataDir != tg.Info().DataDir {
			t.Errorf("sibling %s on %s, first %s on %s", sib.HTTPBase(), sib.Info().DataDir, tg.HTTPBase(), tg.Info().DataDir)
		}
		if got := readBack(t, sib, id); !strings.Contains(got, "kept across restarts") {
			t.Fatalf("second process (in-process first: %v): %s", !o.Process, got)
		}
		if err := sib.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(tg.Info().DataDir); err != nil {
			t.Fatalf("closing the sibling removed the data: %v", err)
		}
	}
}

// TestCommandTmpDir runs a command that takes {tmpdir}: a new empty
// directory stands for it, the target's second process gets the same one,
// and the directory goes when the target closes, or when it could not be
// made.
func TestCommandTmpDir(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	tg, err := target.NewCommand(context.Background(), target.CommandOptions{Command: "server --port {port} --data-dir {tmpdir}",
		Env: []string{"THOUGHTBOX_DATA_DIR=" + target.TmpDirPlaceholder}, Transport: target.Stdio, TmpDirIn: tmp})
	if err != nil {
		t.Fatal(err)
	}
	dir := tg.Info().DataDir
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 || !strings.HasPrefix(dir, tmp+string(os.PathSeparator)) {
		t.Fatalf("{tmpdir} is %q (%d entries, %v), want a new empty directory under %s", dir, len(entries), err, tmp)
	}
	if got := tg.Info().TmpDir; got != dir {
		t.Errorf("Info.TmpDir is %q, want %q", got, dir)
	}
	if a := tg.Info().Address; !strings.Contains(a, "--data-dir "+dir) || strings.Contains(a, "{tmpdir}") {
		t.Errorf("the command runs as %q", a)
	}
	sib, err := tg.(target.Sibling).Sibling(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := sib.Info().DataDir; got != dir {
		t.Errorf("the second process's {tmpdir} is %q, want %q", got, dir)
	}
	if err := sib.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the second process's close removed the directory: %v", err)
	}
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the directory is left after the target closed: %v", err)
	}
	// A target that could not start leaves nothing either.
	if _, err := target.NewCommand(context.Background(), target.CommandOptions{Command: "sh -c 'exit 3' {tmpdir}", Transport: target.HTTP, TmpDirIn: tmp}); err == nil {
		t.Fatal("a command that exits at once started")
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// CommandOptions.DataDir names the directory a command's server keeps its
// data in, {tmpdir} replaced, for a server told so on its command line
// rather than by THOUGHTBOX_DATA_DIR; its exports default to beside it.
func TestCommandDataDirOption(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	tg, err := target.NewCommand(context.Background(), target.CommandOptions{Command: "server --store {tmpdir}/data",
		DataDir: target.TmpDirPlaceholder + "/data", Transport: target.Stdio, TmpDirIn: tmp})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	info := tg.Info()
	if want := filepath.Join(info.TmpDir, "data"); info.TmpDir == "" || info.DataDir != want {
		t.Errorf("Info.DataDir %q, want %q", info.DataDir, want)
	}
	if want := filepath.Join(info.DataDir, "exports"); info.ExportDir != want {
		t.Errorf("Info.ExportDir %q, want %q", info.ExportDir, want)
	}
}
