package target

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/internal/procgroup"
)

func TestFramingDefect(t *testing.T) {
	ok := []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r",
	}
	for _, l := range ok {
		if why := FramingDefect([]byte(l)); why != "" {
			t.Errorf("%q: %s", l, why)
		}
	}
	bad := []string{
		"", "  ", "Thoughtbox MCP Server running on stdio", `{"jsonrpc":"2.0","id":1,`, `[{"jsonrpc":"2.0","method":"x"}]`,
		`{"id":1,"result":{}}`, `{"jsonrpc":"1.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, `{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":{},"result":{}}`, `{"jsonrpc":"2.0","method":3}`, `{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}`,
		`"just a string"`,
	}
	for _, l := range bad {
		if FramingDefect([]byte(l)) == "" {
			t.Errorf("%q passes as a JSON-RPC message", l)
		}
	}
}

// TestStdoutTapPassesEverythingAndRecordsDefects feeds a stream with good
// and bad lines in small pieces: the client reads it unchanged, and each
// bad line, the unterminated last one included, is one defect.
func TestStdoutTapPassesEverythingAndRecordsDefects(t *testing.T) {
	stream := "banner\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n\n" + `{"jsonrpc":"2.0","method":"x"}` + "\n" + `{"jsonrpc":"2.0","id":2,"res`
	pr, pw := io.Pipe()
	go func() {
		for i := 0; i < len(stream); i += 5 {
			_, _ = pw.Write([]byte(stream[i:min(i+5, len(stream))]))
		}
		pw.Close()
	}()
	rec := transcript.Discard()
	tap := newStdoutTap(pr, rec)
	got, err := io.ReadAll(tap)
	if err != nil || string(got) != stream {
		t.Fatalf("read %q (%v), want the stream unchanged", got, err)
	}
	d := rec.Defects()
	if len(d) != 3 || !strings.Contains(d[0], "line 1 ") || !strings.Contains(d[1], "line 3 ") || !strings.Contains(d[2], "line 5 ") {
		t.Fatalf("defects %q, want lines 1, 3 and 5", d)
	}
}

// TestClosingAStdioServerEndsWhatItLeftBehind: a stdio server that exits
// when its session ends, leaving a process it started in its group (as a
// wrapper such as strace leaves the server it ran), leaves nothing running
// once the session is closed.
func TestClosingAStdioServerEndsWhatItLeftBehind(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("sh", "-c", `sleep 300 & echo $! > "$1"; cat >/dev/null`, "sh", pidFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	tr, err := newTappedCommand(cmd, transcript.Discard())
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		if time.Now().After(deadline) {
			t.Fatal("the server did not start its process")
		}
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	_ = tr.Close()
	left, _ := os.FindProcess(pid)
	for deadline := time.Now().Add(5 * time.Second); procgroup.Running(left); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d, left by the server in its group, still runs after the session closed", pid)
		}
	}
}
