package target_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/internal/procgroup"
)

// TestStoppingAnHTTPServerEndsWhatItLeftBehind: an HTTP server command
// that leaves a process in its group which ignores SIGTERM (as strace,
// ending on SIGTERM, leaves the server it ran with the signal swallowed)
// leaves nothing running once the target is closed.
func TestStoppingAnHTTPServerEndsWhatItLeftBehind(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	script := `(trap '' TERM; exec sleep 300) & echo $! > "$1"; exec "$2"`
	tg, err := target.NewCommand(context.Background(), target.CommandOptions{
		Argv:      []string{"sh", "-c", script, "sh", pidFile, os.Args[0]},
		Env:       append([]string{embedded.ServeEnv + "=http", "THOUGHTBOX_STORAGE=memory", "PORT={port}"}, target.SelfChildEnv()...),
		Transport: target.HTTP})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid == 0 {
		t.Fatalf("the process the server left: %q %v", data, err)
	}
	left, _ := os.FindProcess(pid)
	defer left.Kill()
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); procgroup.Running(left); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d, left by the server in its group, still runs after the target closed", pid)
		}
	}
}
