package target

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/internal/procgroup"
)

// FramingDefect says why one line a stdio server wrote to its stdout is not
// a JSON-RPC message ("" when it is one). The MCP stdio transport sends
// JSON-RPC messages delimited by newlines, with no newline inside a
// message, and a server must not write anything else to stdout: so every
// line, an empty one included, must be one JSON-RPC 2.0 request,
// notification or response (JSON white space around it is allowed, so a
// CRLF line end passes). Batches (JSON arrays) are not messages of the
// protocol revisions the harness speaks.
func FramingDefect(line []byte) string {
	if len(bytes.TrimSpace(line)) == 0 {
		return "an empty line"
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(line, &msg); err != nil {
		if json.Valid(line) {
			return "JSON that is not an object"
		}
		return "not JSON"
	}
	var version string
	if json.Unmarshal(msg["jsonrpc"], &version) != nil || version != "2.0" {
		return `a JSON object without "jsonrpc": "2.0"`
	}
	id, hasID := msg["id"]
	if hasID && !validID(id) {
		return "a JSON-RPC message whose id is neither a string nor a number"
	}
	if m, ok := msg["method"]; ok {
		var method string
		if json.Unmarshal(m, &method) != nil || method == "" {
			return "a JSON-RPC message whose method is not a string"
		}
		return ""
	}
	_, result := msg["result"]
	e, hasError := msg["error"]
	switch {
	case !hasID:
		return "a JSON-RPC message with neither a method nor an id"
	case result == hasError:
		return "a JSON-RPC response without exactly one of result and error"
	case hasError:
		var rpcErr struct {
			Code    *json.Number `json:"code"`
			Message *string      `json:"message"`
		}
		if json.Unmarshal(e, &rpcErr) != nil || rpcErr.Code == nil || rpcErr.Message == nil {
			return "a JSON-RPC error without a numeric code and a message"
		}
	}
	return ""
}

// validID reports whether a JSON-RPC id is a string or a number (null only
// in an error answer to a request whose id could not be read).
func validID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64, nil:
		return true
	}
	return false
}

// stdoutTap reads a stdio server's stdout to its end, checks every line with
// FramingDefect and records each defective line in the transcript; what it
// read is passed on unchanged to the client transport, which reads the tap.
// It never stops reading, so the server never blocks on a full pipe, even
// after the client has stopped listening.
type stdoutTap struct {
	rec  *transcript.Recorder
	done chan struct{} // closed when stdout has ended

	mu    sync.Mutex
	cond  *sync.Cond
	queue []byte // read and not yet passed on
	ended error  // set when stdout has ended (io.EOF for a clean end)

	line  []byte // the current, incomplete line
	lines int    // complete lines seen
}

// maxDefectShown bounds how much of a defective line the transcript shows.
const maxDefectShown = 400

func newStdoutTap(out io.Reader, rec *transcript.Recorder) *stdoutTap {
	t := &stdoutTap{rec: rec, done: make(chan struct{})}
	t.cond = sync.NewCond(&t.mu)
	go t.pump(out)
	return t
}

func (t *stdoutTap) pump(out io.Reader) {
	defer close(t.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := out.Read(buf)
		if n > 0 {
			t.inspect(buf[:n])
			t.mu.Lock()
			t.queue = append(t.queue, buf[:n]...)
			t.cond.Broadcast()
			t.mu.Unlock()
		}
		if err != nil {
			if len(t.line) > 0 {
				t.defect(t.lines+1, t.line, "an unterminated last line (no newline before the end of stdout)")
			}
			if errors.Is(err, os.ErrClosed) {
				err = io.EOF
			}
			t.mu.Lock()
			t.ended = err
			t.cond.Broadcast()
			t.mu.Unlock()
			return
		}
	}
}

// inspect checks the complete lines in p.
func (t *stdoutTap) inspect(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.line = append(t.line, p...)
			return
		}
		line := p[:i]
		if len(t.line) > 0 {
			line = append(t.line, line...)
		}
		t.lines++
		if why := FramingDefect(line); why != "" {
			t.defect(t.lines, line, why)
		}
		t.line = t.line[:0]
		p = p[i+1:]
	}
}

// defect records line n of stdout as a defect.
func (t *stdoutTap) defect(n int, line []byte, why string) {
	shown := string(line)
	if len(shown) > maxDefectShown {
		shown = shown[:maxDefectShown] + "…"
	}
	t.rec.Add(transcript.Entry{Dir: transcript.Recv, Kind: transcript.Defect,
		Text: fmt.Sprintf("stdout line %d is not a JSON-RPC message (%s): %q", n, why, shown)})
}

// Read passes stdout on to the client transport.
func (t *stdoutTap) Read(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.queue) == 0 && t.ended == nil {
		t.cond.Wait()
	}
	if len(t.queue) == 0 {
		return 0, t.ended
	}
	n := copy(p, t.queue)
	t.queue = t.queue[n:]
	return n, nil
}

// wait waits until stdout has ended, at most d.
func (t *stdoutTap) wait(d time.Duration) bool {
	select {
	case <-t.done:
		return true
	case <-time.After(d):
		return false
	}
}

// tapped is a stdio client transport whose server's stdout passes a
// stdoutTap. With cmd it owns the server process: Start starts it, Close
// closes its stdin and waits for it to exit (SIGTERM to its process group
// after two seconds, SIGKILL three seconds later).
type tapped struct {
	*transport.Stdio
	tap *stdoutTap

	cmd     *exec.Cmd
	stdoutW *os.File // the server's end of its stdout, closed here once it runs
	stdoutR *os.File
}

// NewTappedIO returns a client transport over a stdio server's streams (in
// is its stdin, out its stdout) that records in rec, as defects, the lines
// on out that are not JSON-RPC messages. Close closes in and waits up to
// five seconds for out to end, so that what the server writes last is
// checked too.
func NewTappedIO(out io.Reader, in io.WriteCloser, rec *transcript.Recorder) transport.Interface {
	tap := newStdoutTap(out, rec)
	return &tapped{Stdio: transport.NewIO(tap, in, nil), tap: tap}
}

// newTappedCommand prepares a transport that runs cmd (not started, its
// stdin and stdout unset) as a stdio server behind a stdoutTap.
func newTappedCommand(cmd *exec.Cmd, rec *transcript.Recorder) (*tapped, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	tap := newStdoutTap(r, rec)
	return &tapped{Stdio: transport.NewIO(tap, in, nil), tap: tap, cmd: cmd, stdoutW: w, stdoutR: r}, nil
}

// Start starts the server process, if the transport owns one, then the
// client transport.
func (t *tapped) Start(ctx context.Context) error {
	if t.cmd != nil && t.cmd.Process == nil {
		err := t.cmd.Start()
		// The server holds its own copy of the write end: stdout ends when
		// the server (and whatever it started) exits.
		t.stdoutW.Close()
		if err != nil {
			return fmt.Errorf("start %s: %w", t.cmd.Path, err)
		}
	}
	return t.Stdio.Start(ctx)
}

// Close ends the session: closes the server's stdin, waits for the server
// to exit (when the transport owns it) and for its stdout to end.
func (t *tapped) Close() error {
	err := t.Stdio.Close()
	if t.cmd != nil {
		if t.cmd.Process == nil {
			t.stdoutW.Close() // never started: end the tap's stdout
		} else {
			err = errors.Join(err, t.stopProcess())
		}
	}
	if !t.tap.wait(5 * time.Second) {
		t.tap.rec.Notef("the server's stdout did not end within five seconds of the end of the session")
	}
	if t.stdoutR != nil {
		t.stdoutR.Close()
	}
	return err
}

// stopProcess waits for the server to exit after its stdin closed, then
// signals its process group; once the server has exited, whatever it left
// in its group is killed (a wrapper such as strace that ends on SIGTERM
// leaves the server it ran behind).
func (t *tapped) stopProcess() error {
	exited := make(chan error, 1)
	go func() { exited <- t.cmd.Wait() }()
	pid := t.cmd.Process.Pid
	for _, step := range []struct {
		wait time.Duration
		sig  syscall.Signal
	}{{2 * time.Second, syscall.SIGTERM}, {3 * time.Second, syscall.SIGKILL}, {3 * time.Second, 0}} {
		select {
		case err := <-exited:
			procgroup.Signal(t.cmd.Process, syscall.SIGKILL)
			return err
		case <-time.After(step.wait):
			if step.sig != 0 {
				procgroup.Signal(t.cmd.Process, step.sig)
			}
		}
	}
	return fmt.Errorf("the stdio server %d did not exit after SIGKILL", pid)
}
