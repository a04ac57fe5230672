//go:build unix

package sidecar

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStoppingAStdioServerStopsWhatItStarted: a server that leaves a
// process behind which ignores SIGTERM and holds its stdout (as strace
// leaves the server it ran) is stopped whole when the context ends: the
// process is killed with the server's group, and Run returns.
func TestStoppingAStdioServerStopsWhatItStarted(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("sh", "-c", `(trap '' TERM; exec sleep 300) & echo $! > "$1"; exec cat >/dev/null`, "sh", pidFile)
	p, err := NewStdio(Config{ServerName: "stdio", ProbeInterval: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	in, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- p.Run(ctx, in, io.Discard) }()
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		if time.Now().After(deadline) {
			t.Fatal("the server did not start its process")
		}
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	cancel()
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return: what the server left holds its stdout")
	}
	if err := syscall.Kill(pid, 0); err == nil {
		if data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); !strings.Contains(string(data), ") Z ") {
			t.Errorf("process %d, left by the server, still runs", pid)
		}
	}
}
