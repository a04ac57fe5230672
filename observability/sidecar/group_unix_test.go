//go:build unix

package sidecar

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
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
	// The server's first line, relayed, is the pid of what it left.
	cmd := exec.Command("sh", "-c", `(trap '' TERM; exec sleep 300) & echo $!; exec cat >/dev/null`)
	p, err := NewStdio(Config{ServerName: "stdio", ProbeInterval: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	in, inW := io.Pipe()
	defer inW.Close()
	outR, out := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- p.Run(ctx, in, out); out.Close() }()
	line, err := bufio.NewReader(outR).ReadString('\n')
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid == 0 {
		t.Fatalf("the server's first line %q: %v", line, err)
	}
	go io.Copy(io.Discard, outR)
	defer syscall.Kill(pid, syscall.SIGKILL)
	cancel()
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return: what the server left holds its stdout")
	}
	// Its end closed the relay's stdout; it is gone, or a zombie, soon after.
	for deadline := time.Now().Add(5 * time.Second); runs(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d, left by the server, still runs", pid)
		}
	}
}

// runs reports whether process pid exists and is not a zombie.
func runs(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err != nil || !strings.Contains(string(data), ") Z ")
}
