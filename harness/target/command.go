package target

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

func (t *Target) startCommand(ctx context.Context) error {
	port := 0
	if strings.Contains(t.opts.Command, "{port}") || strings.Contains(strings.Join(t.opts.Env, "\n"), "{port}") || t.opts.Transport == "http" {
		p, err := freePort()
		if err != nil {
			return err
		}
		port = p
	}
	sub := func(s string) string { return strings.ReplaceAll(s, "{port}", strconv.Itoa(port)) }
	argv, err := SplitCommand(sub(t.opts.Command))
	if err != nil {
		return err
	}
	if len(argv) == 0 {
		return errors.New("--command is empty")
	}
	for _, e := range t.opts.Env {
		e = sub(e)
		t.env = append(t.env, e)
		if k, v, ok := strings.Cut(e, "="); ok && k == "THOUGHTBOX_DATA_DIR" {
			t.info.DataDir = v
		}
		if k, v, ok := strings.Cut(e, "="); ok && k == "THOUGHTBOX_STORAGE" {
			t.info.Storage = v
		}
		if k, v, ok := strings.Cut(e, "="); ok && k == "THOUGHTBOX_EXPORT_DIR" {
			t.info.ExportDir = v
		}
	}
	if t.info.ExportDir == "" && t.info.DataDir != "" {
		t.info.ExportDir = filepath.Join(t.info.DataDir, "exports")
	}
	t.info.Address = strings.Join(argv, " ")
	if t.opts.Transport == "stdio" {
		t.argv = argv
		return nil
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), t.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logPath := filepath.Join(os.TempDir(), fmt.Sprintf("tbbench-child-%d.log", port))
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.onClose(func() error {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		logFile.Close()
		return os.Remove(logPath)
	})
	url := t.opts.URL
	if url == "" {
		url = "http://127.0.0.1:{port}/mcp"
	}
	t.httpURL = sub(url)
	t.info.Address = t.httpURL + " (" + strings.Join(argv, " ") + ")"
	deadline := time.Now().Add(t.opts.StartTimeout)
	for {
		select {
		case err := <-exited:
			out, _ := os.ReadFile(logPath)
			return fmt.Errorf("server command exited: %v\n%s", err, out)
		default:
		}
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server command did not accept connections on port %d within %s", port, t.opts.StartTimeout)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// probe checks that a URL target answers initialize.
func (t *Target) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, t.opts.StartTimeout)
	defer cancel()
	c, err := t.Connect(ctx, transcript.Discard(), ConnOptions{})
	if err != nil {
		return err
	}
	return c.Close()
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// SplitCommand splits a command line into words; single and double quotes
// group words.
func SplitCommand(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}
