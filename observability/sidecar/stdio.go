package sidecar

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// probeIDPrefix marks the ids of the stdio probe's pings, whose answers the
// proxy keeps to itself.
const probeIDPrefix = "smcp-sidecar-probe-"

// StdioProxy runs an MCP server as a child process and relays its stdio to
// the caller's (newline-delimited JSON-RPC), measuring the traffic like
// Proxy does. Create it with NewStdio, then Run it; serve Handler for
// /metrics, /healthz and /readyz.
type StdioProxy struct {
	cfg Config
	tel *telemetry
	cmd *exec.Cmd

	stdin   io.WriteCloser
	writeMu sync.Mutex // serialises lines written to the child

	mu      sync.Mutex
	pending map[string]*call     // client requests awaiting the server's answer
	probes  map[string]time.Time // probe pings awaiting their answer

	// group is true when the server leads a process group of its own
	// (ownGroup): stop signals the group.
	group       bool
	initialized atomic.Bool
	running     atomic.Bool
	closing     atomic.Bool
	probeSeq    int
	closeOnce   sync.Once
	closeErr    error
}

// NewStdio prepares a proxy for cmd, which must not be started and whose
// Stdin and Stdout must be unset (the proxy owns them). A nil cmd.Stderr is
// left as is (discarded); the CLI passes its own stderr through.
func NewStdio(cfg Config, cmd *exec.Cmd) (*StdioProxy, error) {
	if cmd == nil || cmd.Process != nil || cmd.Stdin != nil || cmd.Stdout != nil {
		return nil, errors.New("sidecar: NewStdio needs an unstarted command without Stdin or Stdout")
	}
	cfg = cfg.withDefaults()
	tel, err := newTelemetry(cfg, nil)
	if err != nil {
		return nil, err
	}
	return &StdioProxy{cfg: cfg, tel: tel, cmd: cmd, group: ownGroup(cmd), pending: map[string]*call{}, probes: map[string]time.Time{}}, nil
}

// Handler serves /metrics, /healthz and /readyz.
func (s *StdioProxy) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metrics":
			s.tel.metricsHandler().ServeHTTP(w, r)
		case "/healthz":
			s.tel.serveHealthz(w, s.cfg.ProbeInterval > 0)
		case "/readyz":
			s.tel.serveReadyz(w, s.closing.Load())
		default:
			http.NotFound(w, r)
		}
	})
}

// Counts returns the completed request counts recorded so far.
func (s *StdioProxy) Counts() Counts { return s.tel.counts() }

// Run starts the server and relays in to its stdin and its stdout to out,
// until in ends (the server's stdin is then closed and the server given
// time to exit), the server exits, or ctx ends (the server is stopped). It
// returns the server's exit error.
func (s *StdioProxy) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("sidecar: start %s: %w", s.cmd.Path, err)
	}
	s.stdin = stdin
	s.running.Store(true)
	s.tel.state.setAvailable(true, time.Now())
	s.tel.log.Info("mcp-sidecar relaying stdio", "server_name", s.cfg.ServerName, "command", s.cmd.Path)

	done := make(chan struct{})
	go func() {
		s.pumpIn(in)
		// The client is gone: let the server finish, then make sure it does.
		_ = stdin.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			s.stop()
		}
	}()
	go func() {
		select {
		case <-ctx.Done():
			s.stop()
		case <-done:
		}
	}()
	if s.cfg.ProbeInterval > 0 {
		go s.probeLoop(done)
	}
	s.pumpOut(stdout, out)
	err = s.cmd.Wait()
	close(done)
	s.running.Store(false)
	s.tel.state.setAvailable(false, time.Now())
	s.tel.state.sessions.Store(0)
	s.tel.endPipeSession()
	s.mu.Lock()
	for id, c := range s.pending {
		s.tel.finish(c, outcome.Error, codeNoResponse)
		delete(s.pending, id)
	}
	s.mu.Unlock()
	s.tel.log.Info("mcp server exited", "server_name", s.cfg.ServerName, "error", exitClass(err))
	return err
}

// stop asks the server to terminate, then kills it: its process group
// when it leads one (what it started keeps its stdout open, and the relay
// going, until it ends too).
func (s *StdioProxy) stop() {
	p := s.cmd.Process
	if p == nil {
		return
	}
	signal := func(sig syscall.Signal) {
		if s.group {
			signalGroup(p, sig)
		} else {
			_ = p.Signal(sig)
		}
	}
	signal(syscall.SIGTERM)
	go func() {
		time.Sleep(3 * time.Second)
		if s.running.Load() {
			signal(syscall.SIGKILL)
		}
	}()
}

// pumpIn relays client lines to the server.
func (s *StdioProxy) pumpIn(in io.Reader) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			start := time.Now()
			s.tel.wireBytes(DirectionIn, len(line))
			m := parseMessage(line)
			if m.kind == kindRequest {
				_, c := s.tel.begin(context.Background(), &m, start)
				line = s.tel.traceLine(line, &m, c)
				s.mu.Lock()
				s.pending[c.id] = c
				s.mu.Unlock()
			} else {
				s.tel.observeInbound(&m)
			}
			if s.writeLine(line) != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// writeLine writes one whole line to the server.
func (s *StdioProxy) writeLine(line []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_, err := s.stdin.Write(line)
	return err
}

// pumpOut relays server lines to the client, keeping probe answers.
func (s *StdioProxy) pumpOut(stdout io.Reader, out io.Writer) {
	r := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && !s.serverLine(line) {
			s.tel.wireBytes(DirectionOut, len(line))
			_, _ = out.Write(line)
		}
		if err != nil {
			return
		}
	}
}

// serverLine accounts for one line from the server and reports whether it
// was the answer to a probe (and so not for the client).
func (s *StdioProxy) serverLine(line []byte) bool {
	m := parseMessage(line)
	if m.kind != kindResponse {
		s.tel.observeOutbound(&m)
		return false
	}
	s.mu.Lock()
	if sent, ok := s.probes[m.id]; ok {
		delete(s.probes, m.id)
		s.mu.Unlock()
		s.probeDone(sent, true)
		return true
	}
	c := s.pending[m.id]
	delete(s.pending, m.id)
	s.mu.Unlock()
	if c == nil {
		s.tel.observeOutbound(&m)
		return false
	}
	if c.method == "initialize" && m.err == nil && s.initialized.CompareAndSwap(false, true) {
		s.tel.state.sessions.Store(1)
	}
	s.tel.answer(c, &m)
	return false
}

// probeLoop pings the server every interval once the client has
// initialized the session; before that, a running process counts as
// available.
func (s *StdioProxy) probeLoop(done <-chan struct{}) {
	tk := time.NewTicker(s.cfg.ProbeInterval)
	defer tk.Stop()
	for {
		select {
		case <-done:
			return
		case <-tk.C:
		}
		if !s.initialized.Load() {
			continue
		}
		var lost []time.Time
		s.mu.Lock()
		for id, sent := range s.probes { // unanswered within the timeout
			if time.Since(sent) > s.cfg.ProbeTimeout {
				delete(s.probes, id)
				lost = append(lost, sent)
			}
		}
		s.probeSeq++
		id := strconv.Itoa(s.probeSeq)
		s.probes[probeIDPrefix+id] = time.Now()
		s.mu.Unlock()
		for _, sent := range lost {
			s.probeDone(sent, false)
		}
		_ = s.writeLine([]byte(`{"jsonrpc":"2.0","id":"` + strings.TrimPrefix(probeIDPrefix, "s") + id + `","method":"ping"}` + "\n"))
	}
}

// probeDone records one probe result.
func (s *StdioProxy) probeDone(sent time.Time, ok bool) {
	t := s.tel
	result := "ok"
	if !ok {
		result = "fail"
	}
	t.inst.checkDuration.Record(context.Background(), time.Since(sent).Seconds(), t.attrs.get(attrKey{fam: famResult, a: result}).rec...)
	was := t.state.available.Load()
	t.state.setAvailable(ok && s.running.Load(), time.Now())
	if !ok && was == 1 {
		t.log.Warn("mcp server stopped answering pings", "server_name", s.cfg.ServerName)
	}
}

// Close flushes the exporters. Run must have returned.
func (s *StdioProxy) Close() error {
	s.closeOnce.Do(func() {
		s.closing.Store(true)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.closeErr = s.tel.shutdown(ctx)
	})
	return s.closeErr
}

// exitClass describes how a process ended, without its output.
func exitClass(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exit 0"
	case errors.As(err, &ee):
		return ee.ProcessState.String()
	}
	return "wait failed"
}
