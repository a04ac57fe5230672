package target

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/internal/procgroup"
)

// CommandOptions configure a server started by command.
type CommandOptions struct {
	// Command is the server command line; {port} is replaced by a free port,
	// and {tmpdir} (TmpDirPlaceholder) by a new empty directory made for
	// the target under $TMPDIR and removed when it closes (a second process
	// of the target, Sibling, gets the same one): a data directory that
	// starts empty and leaves nothing behind. Words are split on white
	// space; quote with ' or ".
	Command string
	// Argv, when set, is used instead of Command (no splitting, {port} and
	// {tmpdir} are still replaced).
	Argv []string
	// Env holds extra KEY=VALUE variables for the server; {port} and
	// {tmpdir} are replaced here too. THOUGHTBOX_DATA_DIR, _STORAGE and
	// _EXPORT_DIR are read into Info.
	Env []string
	// Transport is Stdio (a new child per MCP session) or HTTP (one child).
	Transport string
	// URL is the HTTP child's MCP endpoint, {port} standing for its port
	// (default http://127.0.0.1:{port}/mcp).
	URL string
	// StartTimeout bounds how long an HTTP child may take to accept
	// connections (default 10 s).
	StartTimeout time.Duration
	// ExportDir overrides the export dir read from Env.
	ExportDir string
	// DataDir, when set, is the directory the server keeps its data in as
	// its command line names it (THOUGHTBOX_DATA_DIR in Env says so too),
	// {tmpdir} replaced: Info.DataDir, so that the checks of a server's
	// files apply.
	DataDir string
	// Kind overrides Info.Kind (for targets built on this one).
	Kind string
	// ObservatoryURL is where the server runs its Observatory,
	// ObsPortPlaceholder and {port} standing for its ports (default
	// http://127.0.0.1:{obsport} when the command or its environment takes
	// {obsport}; none otherwise).
	ObservatoryURL string
	// TmpDirIn is the directory {tmpdir} is made in ("": $TMPDIR).
	TmpDirIn string

	// tmpDir is what {tmpdir} stands for, once made.
	tmpDir string
}

// TmpDirPlaceholder, in a command, its arguments or its environment, stands
// for a new empty directory made for the target (CommandOptions.Command).
const TmpDirPlaceholder = "{tmpdir}"

type commandTarget struct {
	o    CommandOptions
	info Info
	argv []string
	env  []string
	url  string
	port int
	// obsPort is the HTTP child's Observatory port (0: none, or stdio,
	// where every process gets its own); obs is the Observatory, if any.
	obsPort int
	obs     Observed
	perProc *perProcessObservatory

	mu      sync.Mutex
	child   *child
	cleanup closers
	// procs are the stdio children started so far that may still run.
	procs map[*exec.Cmd]bool
}

// NewCommand starts a server by command. Over stdio nothing starts until a
// session is dialled; over HTTP the child is started and awaited here.
func NewCommand(ctx context.Context, o CommandOptions) (Target, error) {
	t, err := newCommand(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	return t, nil
}

func newCommand(ctx context.Context, o CommandOptions) (_ *commandTarget, err error) {
	if o.StartTimeout <= 0 {
		o.StartTimeout = 10 * time.Second
	}
	if o.Transport == "" {
		o.Transport = Stdio
	}
	if o.Transport != Stdio && o.Transport != HTTP {
		return nil, fmt.Errorf("transport must be %s or %s, not %q", HTTP, Stdio, o.Transport)
	}
	if o.Kind == "" {
		o.Kind = KindCommand
	}
	t := &commandTarget{o: o, info: Info{Kind: o.Kind, Transport: o.Transport, Canary: Canary()}, procs: map[*exec.Cmd]bool{}}
	uses := func(s string) bool { return strings.Contains(s, "{port}") }
	if o.Transport == HTTP || uses(o.Command) || uses(strings.Join(o.Env, "\n")) || uses(strings.Join(o.Argv, "\n")) {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		t.port = p
	}
	if o.tmpDir == "" && strings.Contains(strings.Join(append(append([]string{o.Command, o.URL, o.DataDir, o.ExportDir}, o.Argv...), o.Env...), "\n"), TmpDirPlaceholder) {
		dir, err := os.MkdirTemp(o.TmpDirIn, "tbbench-target-*")
		if err != nil {
			return nil, err
		}
		o.tmpDir = dir
		t.o = o
		t.cleanup.add(func() error { return os.RemoveAll(dir) })
	}
	// A target that could not be made leaves no directory behind.
	defer func() {
		if err != nil {
			_ = t.cleanup.run()
		}
	}()
	argv := o.Argv
	if argv == nil {
		words, err := SplitCommand(o.Command)
		if err != nil {
			return nil, err
		}
		argv = words
	}
	if len(argv) == 0 {
		return nil, errors.New("the server command is empty")
	}
	if err := t.setObservatory(argv); err != nil {
		return nil, err
	}
	for _, a := range argv {
		t.argv = append(t.argv, t.sub(a))
	}
	for _, e := range o.Env {
		e = t.sub(e)
		t.env = append(t.env, e)
		k, v, _ := strings.Cut(e, "=")
		switch k {
		case "THOUGHTBOX_DATA_DIR":
			t.info.DataDir = v
		case "THOUGHTBOX_STORAGE":
			t.info.Storage = v
		case "THOUGHTBOX_EXPORT_DIR":
			t.info.ExportDir = v
		}
	}
	if o.DataDir != "" {
		t.info.DataDir = t.sub(o.DataDir)
	}
	if o.ExportDir != "" {
		t.info.ExportDir = t.sub(o.ExportDir)
	}
	if t.info.ExportDir == "" && t.info.DataDir != "" {
		t.info.ExportDir = filepath.Join(t.info.DataDir, "exports")
	}
	t.info.Address, t.info.TmpDir = strings.Join(t.argv, " "), o.tmpDir
	if o.Transport == Stdio {
		return t, nil
	}
	url := o.URL
	if url == "" {
		url = "http://127.0.0.1:{port}/mcp"
	}
	t.url = t.sub(url)
	t.info.Address = t.url + " (" + t.info.Address + ")"
	if err := t.start(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *commandTarget) sub(s string) string {
	s = strings.ReplaceAll(s, "{port}", strconv.Itoa(t.port))
	if t.o.tmpDir != "" {
		s = strings.ReplaceAll(s, TmpDirPlaceholder, t.o.tmpDir)
	}
	if t.obsPort != 0 {
		s = strings.ReplaceAll(s, ObsPortPlaceholder, strconv.Itoa(t.obsPort))
	}
	return s
}

func (t *commandTarget) Info() Info       { return t.info }
func (t *commandTarget) HTTPBase() string { return t.url }

// Command returns a new server process for one stdio session.
func (t *commandTarget) Command(rec *transcript.Recorder) *exec.Cmd {
	return t.command(context.Background(), rec)
}

// command is Command with a process that is killed, with its group, when
// ctx ends.
func (t *commandTarget) command(ctx context.Context, rec *transcript.Recorder) *exec.Cmd {
	argv, env := t.argv, t.env
	if t.perProc != nil {
		argv, env = t.perProcessObsPort(rec)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Cancel = func() error { procgroup.Signal(cmd.Process, syscall.SIGKILL); return nil }
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = &lineWriter{rec: rec}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t.mu.Lock()
	t.procs[cmd] = true
	t.mu.Unlock()
	return cmd
}

func (t *commandTarget) Dial(_ context.Context, rec *transcript.Recorder, o DialOptions) (transport.Interface, error) {
	if t.o.Transport == HTTP {
		return DialHTTP(t.url, o)
	}
	// Every line of the child's stdout is checked on its way to the client.
	return newTappedCommand(t.command(context.Background(), rec), rec)
}

// PID returns the HTTP child's pid (0 over stdio or when it is not running).
func (t *commandTarget) PID() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.child == nil {
		return 0
	}
	return t.child.cmd.Process.Pid
}

// Restart stops the HTTP child (with SIGKILL when kill is set) and starts it
// again on the same port and data. Over stdio every session is a new
// process, so only the processes still running are stopped.
func (t *commandTarget) Restart(ctx context.Context, kill bool) error {
	return t.RestartWhileStopped(ctx, kill, nil)
}

// RestartWhileStopped is Restart with stopped run while no server process
// runs.
func (t *commandTarget) RestartWhileStopped(ctx context.Context, kill bool, stopped func() error) error {
	if t.o.Transport == Stdio {
		t.stopStdio(kill)
		if stopped != nil {
			return stopped()
		}
		return nil
	}
	if err := t.stop(kill); err != nil {
		return err
	}
	var serr error
	if stopped != nil {
		serr = stopped()
	}
	return errors.Join(serr, t.start(ctx))
}

// Sibling starts another process of the same command on the same data: over
// HTTP a second child on a free port of its own, over stdio a target whose
// sessions are processes of their own like this one's.
func (t *commandTarget) Sibling(ctx context.Context) (Target, error) {
	return t.sibling(ctx)
}

func (t *commandTarget) sibling(ctx context.Context) (*commandTarget, error) {
	if t.o.Transport == HTTP && !strings.Contains(strings.Join(append(append([]string{t.o.Command}, t.o.Argv...), t.o.Env...), "\n"), "{port}") {
		return nil, fmt.Errorf("%w: a second process needs a port of its own: the server command does not take {port}", ErrUnreachable)
	}
	s, err := newCommand(ctx, t.o)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	return s, nil
}

func (t *commandTarget) Close() error {
	err := t.stop(false)
	t.mu.Lock()
	defer t.mu.Unlock()
	return errors.Join(err, t.cleanup.run())
}

// child is a running HTTP server process.
type child struct {
	cmd     *exec.Cmd
	exited  chan error
	logPath string
	log     *os.File
}

func (t *commandTarget) start(ctx context.Context) error {
	cmd := exec.Command(t.argv[0], t.argv[1:]...)
	cmd.Env = append(os.Environ(), t.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logFile, err := os.CreateTemp("", fmt.Sprintf("tbbench-child-%d-*.log", t.port))
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		os.Remove(logFile.Name())
		return err
	}
	c := &child{cmd: cmd, exited: make(chan error, 1), logPath: logFile.Name(), log: logFile}
	go func() { c.exited <- cmd.Wait() }()
	t.mu.Lock()
	t.child = c
	t.mu.Unlock()
	deadline := time.Now().Add(t.o.StartTimeout)
	for {
		select {
		case err := <-c.exited:
			c.exited <- err
			out, _ := os.ReadFile(c.logPath)
			_ = t.stop(true)
			return fmt.Errorf("server command exited: %v\n%s", err, out)
		case <-ctx.Done():
			_ = t.stop(true)
			return ctx.Err()
		default:
		}
		if conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", t.port), 200*time.Millisecond); err == nil {
			conn.Close()
			return nil
		}
		if time.Now().After(deadline) {
			_ = t.stop(true)
			return fmt.Errorf("server command did not accept connections on port %d within %s", t.port, t.o.StartTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop ends the HTTP child: SIGTERM, then SIGKILL after five seconds (at
// once when kill is set).
func (t *commandTarget) stop(kill bool) error {
	t.mu.Lock()
	c := t.child
	t.child = nil
	t.mu.Unlock()
	if c == nil {
		return nil
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	// Idle connections first: the child's graceful shutdown would wait five
	// seconds for one the harness dialed but never sent a request on.
	forgetIdleConnections(t.url)
	procgroup.Signal(c.cmd.Process, sig)
	select {
	case <-c.exited:
	case <-time.After(5 * time.Second):
		procgroup.Signal(c.cmd.Process, syscall.SIGKILL)
		<-c.exited
	}
	// What the child left in its group (the server a wrapper such as
	// strace ran, which outlives a wrapper that ends on SIGTERM) ends too.
	procgroup.Signal(c.cmd.Process, syscall.SIGKILL)
	forgetIdleConnections(t.url)
	c.log.Close()
	return removeLogUnlessPanicked(c.logPath)
}

// stopStdio stops the stdio children still running (SIGTERM, then SIGKILL
// after five seconds; at once when kill is set) and waits until they have
// exited.
func (t *commandTarget) stopStdio(kill bool) {
	t.mu.Lock()
	var procs []*os.Process
	for cmd := range t.procs {
		// Start ran before the session it serves answered, and that answer
		// reached this goroutine: reading Process here is ordered after it.
		if cmd.Process != nil {
			procs = append(procs, cmd.Process)
		}
	}
	t.procs = map[*exec.Cmd]bool{}
	t.mu.Unlock()
	// A process reaped long ago left its number free for the kernel to
	// give again, maybe to a server of another test: only those still
	// running are signalled (procgroup).
	var running []*os.Process
	for _, p := range procs {
		if procgroup.Running(p) {
			running = append(running, p)
		}
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	for _, p := range running {
		procgroup.Signal(p, sig)
	}
	term := time.Now().Add(5 * time.Second)
	for _, p := range running {
		for procgroup.Running(p) && time.Now().Before(term.Add(2*time.Second)) {
			if time.Now().After(term) {
				procgroup.Signal(p, syscall.SIGKILL)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// freePort returns a TCP port of 127.0.0.1 that was free a moment ago, for
// a child server to listen on.
//
// The port comes from below the kernel's ephemeral range where there is
// room: a port picked by listening on port 0 is free only until the
// listener closes, and the kernel hands the ephemeral ports to every other
// listener on port 0 and to outgoing connections, so that with many tests
// at once another process could take it before the child binds it (and the
// harness would then talk to that process). Below the range only another
// such pick can take it.
//
// The ports of one process are taken in turn from a random start, so that
// two picks of this process never meet (random picks did: two children of
// one run were given the same port); other harness processes start
// elsewhere in the range, and a port one of them has claimed is passed over
// (portclaim.go): their walks may meet.
func freePort() (int, error) {
	if low := ephemeralLow(); low > 11000 {
		span := int64(low - 10000)
		nextPort.CompareAndSwap(0, 1+rand.Int64N(span))
		for range 50 {
			p := 10000 + int(nextPort.Add(1)%span)
			if !claimPort(p) {
				continue // another harness process has just picked it
			}
			if ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p)); err == nil {
				ln.Close()
				return p, nil
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// nextPort is where freePort takes its next port from (0: not yet chosen).
var nextPort atomic.Int64

// ephemeralLow is the lowest port of the kernel's ephemeral range (0 where
// it is not known).
func ephemeralLow() int {
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		return 0
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil {
		return 0
	}
	return low
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
