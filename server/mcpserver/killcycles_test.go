package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// lockedBuffer collects the children's stderr.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// envCount reads a positive count from the environment, or def.
func envCount(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// ackedThought is a thought a server acknowledged.
type ackedThought struct {
	number float64
	branch bool
	text   string
}

// cycleWriter is one client writing one reasoning session across kill
// cycles, moving between the two processes.
type cycleWriter struct {
	id    int
	sid   string
	acked []ackedThought
}

// tryDial opens an MCP session over HTTP without failing the test (the
// server may be dying).
func tryDial(url string) (*mcpClient, error) {
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPLogger(discardLogger()))
	if err != nil {
		return nil, err
	}
	if err := c.Start(context.Background()); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "kill-cycles", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, err
	}
	return &mcpClient{c: c}, nil
}

// killStats are the figures of a kill-cycle run.
type killStats struct {
	damage   atomic.Int64 // load_context answers that call a session damaged
	problems []string     // anything else that went wrong
	mu       sync.Mutex
}

func (k *killStats) problem(format string, a ...any) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.problems) < 20 {
		k.problems = append(k.problems, fmt.Sprintf(format, a...))
	}
}

// run writes thoughts through the server at url until stop closes or the
// server dies, then lets go of the session. It calls writing once, when its
// first thought of the cycle is acknowledged or when it gives up before
// that.
func (w *cycleWriter) run(url string, cycle int, stop <-chan struct{}, stats *killStats, writing func()) {
	var once sync.Once
	defer once.Do(writing)
	m, err := tryDial(url)
	if err != nil {
		stats.problem("writer %d cycle %d: dial: %v", w.id, cycle, err)
		return
	}
	defer m.c.Close()
	for _, op := range []struct {
		name string
		args any
	}{{"start_new", map[string]any{"newWork": map[string]any{"project": "kill"}}}, {"cipher", nil}} {
		if r, err := m.callRaw(op.name, op.args); err != nil || r.IsError {
			stats.problem("writer %d cycle %d: %s: %v %s", w.id, cycle, op.name, err, r.Text)
			return
		}
	}
	if w.sid != "" {
		r, err := m.callRaw("load_context", map[string]any{"sessionId": w.sid})
		if err != nil {
			return // the server died while the call waited for the session
		}
		if r.IsError {
			if strings.Contains(r.Text, "damaged") {
				stats.damage.Add(1)
			}
			stats.problem("writer %d cycle %d: load_context: %s", w.id, cycle, strings.SplitN(r.Text, "\n", 2)[0])
			return
		}
	}
	defer m.callRaw("start_new", map[string]any{"newWork": map[string]any{"project": "kill"}})
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		text := fmt.Sprintf("writer %d cycle %d thought %d", w.id, cycle, i)
		args := map[string]any{"thought": text, "nextThoughtNeeded": true}
		branch := w.sid != "" && i%6 == 5
		if branch {
			args["branchId"], args["branchFromThought"] = "side", 1
		}
		r, err := m.callRaw("thought", args)
		if err != nil {
			return // the server died: this thought was not acknowledged
		}
		if r.IsError {
			stats.problem("writer %d cycle %d: thought refused: %s", w.id, cycle, r.Text)
			return
		}
		var ans struct {
			ThoughtNumber float64 `json:"thoughtNumber"`
			SessionID     string  `json:"sessionId"`
		}
		_ = json.Unmarshal([]byte(r.Text), &ans)
		w.sid = ans.SessionID
		w.acked = append(w.acked, ackedThought{ans.ThoughtNumber, branch, text})
		once.Do(writing)
	}
}

// readSessions reads every writer's session through the server at url
// until stop closes: sessions another process writes must be readable.
func readSessions(url string, sids []string, stop <-chan struct{}, stats *killStats) {
	m, err := tryDial(url)
	if err != nil {
		return
	}
	defer m.c.Close()
	if r, err := m.callRaw("start_new", map[string]any{"newWork": map[string]any{"project": "read"}}); err != nil || r.IsError {
		return
	}
	for {
		select {
		case <-stop:
			return
		default:
		}
		for _, sid := range sids {
			r, err := m.callRaw("session", map[string]any{"operation": "get", "sessionId": sid})
			if err != nil {
				return
			}
			if r.IsError {
				stats.problem("reader: session get %s: %s", sid, r.Text)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestKillNineCyclesWithTwoProcesses kills one of two servers sharing a
// data directory with SIGKILL, cycle after cycle, while several writers
// move their sessions between the two and a reader reads them through the
// survivor. It requires no acknowledged thought lost, no false damage
// report (from load_context or any start-up) and no stale link on disk.
// THOUGHTBOX_TEST_KILL_CYCLES and THOUGHTBOX_TEST_KILL_WRITERS raise the
// counts (the figure: 20 and 4).
func TestKillNineCyclesWithTwoProcesses(t *testing.T) { killNineCycles(t, "fs") }

// killNineCycles is TestKillNineCyclesWithTwoProcesses on the storage
// backend named (fs or sqlite; the stale-link check of the files is fs's).
func killNineCycles(t *testing.T, storage string) {
	cycles := envCount("THOUGHTBOX_TEST_KILL_CYCLES", 4)
	nWriters := envCount("THOUGHTBOX_TEST_KILL_WRITERS", 4)
	dir := t.TempDir()
	logs := &lockedBuffer{}
	type child struct {
		cmd *exec.Cmd
		url string
	}
	start := func() child {
		cmd, url := startChildEnv(t, dir, logs, "THOUGHTBOX_LOCK_WAIT=10s", "THOUGHTBOX_STORAGE="+storage)
		return child{cmd, url}
	}
	procs := [2]child{start(), start()}
	writers := make([]*cycleWriter, nWriters)
	for i := range writers {
		writers[i] = &cycleWriter{id: i}
	}
	stats := &killStats{}
	began := time.Now()
	for cycle := 0; cycle < cycles; cycle++ {
		victim := cycle % 2
		stop := make(chan struct{})
		var wg, writing sync.WaitGroup
		var sids []string
		for i, w := range writers {
			if w.sid != "" {
				sids = append(sids, w.sid)
			}
			wg.Add(1)
			writing.Add(1)
			go func(w *cycleWriter, u string) {
				defer wg.Done()
				w.run(u, cycle, stop, stats, writing.Done)
			}(w, procs[(i+cycle)%2].url)
		}
		wg.Add(1)
		go func() { defer wg.Done(); readSessions(procs[1-victim].url, sids, stop, stats) }()
		// The kill comes once every writer is writing (has a thought of
		// this cycle acknowledged, or has given up), and 400 ms later:
		// on a busy machine opening the sessions alone can take longer
		// than a fixed wait, and the cycle then tested nothing.
		writing.Wait()
		time.Sleep(400 * time.Millisecond)
		_ = procs[victim].cmd.Process.Signal(syscall.SIGKILL)
		time.Sleep(50 * time.Millisecond)
		close(stop)
		wg.Wait()
		_ = procs[victim].cmd.Wait()
		procs[victim] = start()
	}
	for _, p := range procs {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		_ = p.cmd.Wait()
	}

	final := start()
	m := dialHTTP(t, final.url)
	m.ready()
	total, lost := 0, 0
	for _, w := range writers {
		total += len(w.acked)
		if w.sid == "" {
			continue
		}
		r := m.gateway("session", map[string]any{"operation": "get", "sessionId": w.sid})
		var got storedThoughts
		if err := json.Unmarshal([]byte(r.Text), &got); err != nil {
			t.Fatalf("session get %s: %v\n%.300s", w.sid, err, r.Text)
		}
		have := map[string]bool{}
		for _, th := range got.Thoughts {
			have[fmt.Sprint(false, th.ThoughtNumber, th.Thought)] = true
		}
		for _, th := range got.Branches["side"] {
			have[fmt.Sprint(true, th.ThoughtNumber, th.Thought)] = true
		}
		for _, a := range w.acked {
			if !have[fmt.Sprint(a.branch, a.number, a.text)] {
				lost++
				if lost <= 5 {
					t.Errorf("acknowledged thought lost: session %s, %q as number %v", w.sid, a.text, a.number)
				}
			}
		}
		if r := m.gateway("load_context", map[string]any{"sessionId": w.sid}); r.IsError {
			if strings.Contains(r.Text, "damaged") {
				stats.damage.Add(1)
			}
			t.Errorf("load_context %s after the run: %s", w.sid, strings.SplitN(r.Text, "\n", 2)[0])
		}
	}
	m.c.Close()
	_ = final.cmd.Process.Signal(syscall.SIGTERM)
	_ = final.cmd.Wait()

	var stale []string
	files := 0
	if storage == "fs" {
		stale, files = staleLinks(t, dir)
	}
	startupDamage := strings.Count(logs.String(), "damaged session")
	t.Logf("%d kill -9 cycles, %d writers, 2 processes, %v: %d thoughts acknowledged, %d lost, %d false damage reports (load_context %d, start-up %d), %d stale links in %d files",
		cycles, nWriters, time.Since(began).Round(time.Millisecond), total, lost, stats.damage.Load()+int64(startupDamage),
		stats.damage.Load(), startupDamage, len(stale), files)
	if total < cycles*nWriters {
		t.Errorf("only %d thoughts acknowledged: the writers did not write", total)
	}
	if stats.damage.Load() > 0 || startupDamage > 0 {
		t.Errorf("false damage reports: load_context %d, start-up %d", stats.damage.Load(), startupDamage)
	}
	for i, s := range stale {
		if i == 5 {
			break
		}
		t.Errorf("stale link on disk: %s", s)
	}
	for _, p := range stats.problems {
		t.Errorf("%s", p)
	}
}
