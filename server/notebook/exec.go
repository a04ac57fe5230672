package notebook

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Execution is the outcome of running a cell.
type Execution struct {
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	ExitCode int    `json:"exitCode"`
	Success  bool   `json:"success"`
	// TimedOut is set when the run was killed at its time limit.
	TimedOut bool `json:"timedOut,omitempty"`
}

// failedExecution is the outcome of a run that could not start.
func failedExecution(msg string) Execution {
	return Execution{Stderr: msg, ExitCode: -1}
}

// job is one process to run for a cell.
type job struct {
	argv    []string
	dir     string
	env     []string
	timeout time.Duration
	limit   int // bytes kept of each of stdout and stderr
}

// cellEnv is the whole environment of cell code: nothing of the server's
// own environment, only a PATH that starts with the node's directory, a
// home and a temporary directory of the notebooks' own, and a locale.
func cellEnv(nodePath, home string) []string {
	return []string{
		"PATH=" + filepath.Dir(nodePath) + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"TMPDIR=" + home,
		"LANG=C.UTF-8",
		"npm_config_update_notifier=false",
		"npm_config_fund=false",
		"npm_config_audit=false",
	}
}

// cappedBuffer keeps the first limit bytes written to it and counts the rest.
type cappedBuffer struct {
	limit   int
	buf     []byte
	dropped int64
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - len(b.buf); room > 0 {
		n := min(room, len(p))
		b.buf = append(b.buf, p[:n]...)
		b.dropped += int64(len(p) - n)
	} else {
		b.dropped += int64(len(p))
	}
	return len(p), nil
}

func (b *cappedBuffer) String() string {
	s := strings.ToValidUTF8(string(b.buf), "\uFFFD")
	if b.dropped > 0 {
		s += fmt.Sprintf("\n[output truncated: %d more bytes not kept]", b.dropped)
	}
	return s
}

// pipeReader copies one of the process's output pipes into a capped buffer.
type pipeReader struct {
	r    *os.File
	buf  cappedBuffer
	done chan struct{}
}

func newPipe(limit int) (*pipeReader, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	p := &pipeReader{r: r, buf: cappedBuffer{limit: limit}, done: make(chan struct{})}
	go func() {
		_, _ = io.Copy(&p.buf, r)
		close(p.done)
	}()
	return p, w, nil
}

// finish waits for the copy to end, at most grace: a process that left the
// group (setsid) and still holds the pipe can not keep the run open.
func (p *pipeReader) finish(grace time.Duration) string {
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.r.Close()
		<-p.done
	}
	_ = p.r.Close()
	return p.buf.String()
}

// killGroup kills every process of the process group pgid.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }

// run starts j in a process group of its own and waits for it. At the time
// limit, or when ctx ends, the whole group is killed; when the main process
// exits, whatever it left running in its group is killed too.
func run(ctx context.Context, j job) Execution {
	stdout, outW, err := newPipe(j.limit)
	if err != nil {
		return failedExecution("Error: " + err.Error())
	}
	stderr, errW, err := newPipe(j.limit)
	if err != nil {
		outW.Close()
		stdout.finish(0)
		return failedExecution("Error: " + err.Error())
	}
	cmd := exec.Command(j.argv[0], j.argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = j.dir, j.env, outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		return failedExecution(stderr.finish(time.Second) + "\nError: " + err.Error())
	}
	pgid := cmd.Process.Pid
	exited := make(chan struct{})
	var timedOut, cancelled bool
	var mu sync.Mutex
	go func() {
		timer := time.NewTimer(j.timeout)
		defer timer.Stop()
		select {
		case <-exited:
			return
		case <-timer.C:
			mu.Lock()
			timedOut = true
			mu.Unlock()
		case <-ctx.Done():
			mu.Lock()
			cancelled = true
			mu.Unlock()
		}
		killGroup(pgid)
	}()
	waitErr := cmd.Wait()
	close(exited)
	killGroup(pgid)
	ex := Execution{Stdout: stdout.finish(2 * time.Second), Stderr: stderr.finish(2 * time.Second), ExitCode: cmd.ProcessState.ExitCode()}
	mu.Lock()
	defer mu.Unlock()
	switch {
	case timedOut:
		ex.ExitCode, ex.TimedOut = -1, true
		ex.Stderr += fmt.Sprintf("\nExecution timed out after %dms", j.timeout.Milliseconds())
	case cancelled:
		ex.ExitCode = -1
		ex.Stderr += "\nExecution cancelled: the request ended"
	case waitErr != nil && ex.ExitCode == -1:
		ex.Stderr += "\nError: " + waitErr.Error()
	}
	ex.Success = ex.ExitCode == 0 && !timedOut && !cancelled
	return ex
}
