package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime/pprof"
	"slices"
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
	mcpsrv "github.com/mark3labs/mcp-go/server"

	"github.com/thoughtbox-bench/tbbench/server/mcpserver"
)

var (
	ceilingRounds   = flag.Int("ceiling.rounds", 9, "BenchmarkCeiling: interleaved rounds")
	ceilingDuration = flag.Duration("ceiling.duration", time.Second, "BenchmarkCeiling: length of one target's closed-loop load in a round")
	ceilingSessions = flag.Int("ceiling.sessions", 8, "BenchmarkCeiling: concurrent MCP sessions")
	ceilingPaced    = flag.Duration("ceiling.paced", time.Second, "BenchmarkCeiling: length of one paced round at half the closed-loop rate (0 skips them)")
	ceilingOnly     = flag.String("ceiling.only", "memory", "BenchmarkLoad: the one target to load (noop, memory or fs)")
	ceilingProfile  = flag.String("ceiling.cpuprofile", "", "BenchmarkLoad: file where the target server writes its CPU profile")
	ceilingDataDir  = flag.String("ceiling.datadir", "", "where the fs target keeps its data directory (default: the system's temporary directory)")
)

// noopServer is the stack's ceiling: an mcp-go server over Streamable HTTP
// with a thoughtbox_gateway tool of the same schema that answers every call
// at once with a minimal thought answer.
func noopServer() http.Handler {
	s := mcpsrv.NewMCPServer("noop", "1", mcpsrv.WithToolCapabilities(false))
	tool := mcp.NewToolWithRawSchema("thoughtbox_gateway", "no-op gateway", json.RawMessage(`{"type":"object","properties":{"operation":{"type":"string"},"args":{"type":"object"}},"required":["operation"]}`))
	s.AddTool(tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("{\n  \"thoughtNumber\": 1,\n  \"sessionId\": \"00000000-0000-0000-0000-000000000000\"\n}"), nil
	})
	return mcpsrv.NewStreamableHTTPServer(s)
}

// loadSession is one MCP session of the load: an mcp-go client over
// Streamable HTTP brought to stage cipher_loaded in a fresh reasoning
// session.
type loadSession struct {
	c   *client.Client
	seq int
}

func openLoadSession(ctx context.Context, url string, hc *http.Client) (*loadSession, error) {
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPBasicClient(hc), transport.WithHTTPLogger(discardLogger()))
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "ceiling", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		c.Close()
		return nil, err
	}
	s := &loadSession{c: c}
	for _, op := range []string{"start_new", "cipher"} {
		args := map[string]any{}
		if op == "start_new" {
			args["newWork"] = map[string]any{"project": "ceiling"}
		}
		if err := s.call(ctx, op, args); err != nil {
			c.Close()
			return nil, err
		}
	}
	return s, nil
}

func (s *loadSession) call(ctx context.Context, op string, args map[string]any) error {
	req := mcp.CallToolRequest{}
	req.Params.Name = "thoughtbox_gateway"
	req.Params.Arguments = map[string]any{"operation": op, "args": args}
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if res.IsError {
		return fmt.Errorf("%s: error result %+v", op, res.Content)
	}
	return nil
}

// next sends the next call of the mix: nine thoughts of about 150 bytes,
// then a read_thoughts of the last five; every 1,000th call is a start_new,
// so that reasoning sessions stay below 1,000 thoughts. It reports whether
// it was a thought.
func (s *loadSession) next(ctx context.Context) (bool, error) {
	s.seq++
	if s.seq%1000 == 0 {
		return false, s.call(ctx, "start_new", map[string]any{"newWork": map[string]any{"project": "ceiling"}})
	}
	if s.seq%10 == 0 {
		return false, s.call(ctx, "read_thoughts", map[string]any{})
	}
	return true, s.call(ctx, "thought", map[string]any{
		"thought":           "Step " + strconv.Itoa(s.seq) + ": the cache returns stale entries because the TTL is computed from the write time, not from the upstream change.",
		"nextThoughtNeeded": true,
	})
}

func openLoadSessions(url string, n int, hc *http.Client) ([]*loadSession, error) {
	ss := make([]*loadSession, 0, n)
	for range n {
		s, err := openLoadSession(context.Background(), url, hc)
		if err != nil {
			closeLoadSessions(ss)
			return nil, err
		}
		ss = append(ss, s)
	}
	return ss, nil
}

func closeLoadSessions(ss []*loadSession) {
	for _, s := range ss {
		_ = s.c.Close()
	}
}

// closedLoad runs the sessions back to back for d and returns the number
// of calls made.
func closedLoad(ss []*loadSession, d time.Duration) (int64, error) {
	var done atomic.Int64
	var firstErr error
	var once sync.Once
	ctx := context.Background()
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if _, err := s.next(ctx); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	return done.Load(), firstErr
}

// pacedLoad sends rate calls/s spread over the sessions for d and returns
// two latencies of every thought call: from its scheduled start (a late
// start, whatever its cause, counts against the server) and from its actual
// start (the service time).
func pacedLoad(ss []*loadSession, rate float64, d time.Duration) (scheduled, service []time.Duration, err error) {
	n := len(ss)
	interval := time.Duration(float64(n) / rate * float64(time.Second))
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for i, s := range ss {
		wg.Go(func() {
			ctx := context.Background()
			var sched, serv []time.Duration
			at := start.Add(interval * time.Duration(i) / time.Duration(n))
			for at.Before(start.Add(d)) {
				time.Sleep(time.Until(at))
				sent := time.Now()
				thought, callErr := s.next(ctx)
				if callErr != nil {
					mu.Lock()
					err = callErr
					mu.Unlock()
					return
				}
				if thought {
					sched = append(sched, time.Since(at))
					serv = append(serv, time.Since(sent))
				}
				at = at.Add(interval)
			}
			mu.Lock()
			scheduled = append(scheduled, sched...)
			service = append(service, serv...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return scheduled, service, err
}

// p99 returns the 99th percentile of ds.
func p99(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)*99/100]
}

// ceilingServeEnv makes the test binary, started as a child by the load
// benchmarks, serve one target (noop, memory or fs) on a loopback port
// instead of running tests: client and server then have separate heaps and
// garbage collectors, as when a server is measured from outside.
// ceilingProfileEnv, when set too, names the file where the child writes
// its CPU profile when it ends.
// ceilingDataDirEnv names the directory under which the child creates its
// data directory.
const (
	ceilingServeEnv   = "TBBENCH_CEILING_SERVE"
	ceilingProfileEnv = "TBBENCH_CEILING_CPUPROFILE"
	ceilingDataDirEnv = "TBBENCH_CEILING_DATADIR"
)

// serveCeilingTarget is the child's side: it prints the target's MCP URL on
// stdout and serves until stdin closes.
func serveCeilingTarget(kind string) int {
	var h http.Handler
	switch kind {
	case "noop":
		h = noopServer()
	case "memory", "fs":
		dir, err := os.MkdirTemp(os.Getenv(ceilingDataDirEnv), "ceiling-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		cfg := mcpserver.Defaults()
		cfg.Storage, cfg.DataDir, cfg.DisableThoughtLogging = kind, dir, true
		srv, err := mcpserver.New(cfg, mcpserver.WithLogger(discardLogger()))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer srv.Close()
		h = srv.Handler()
	default:
		fmt.Fprintf(os.Stderr, "unknown target %q\n", kind)
		return 2
	}
	if path := os.Getenv(ceilingProfileEnv); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	defer hs.Close()
	fmt.Printf("http://%s%s\n", ln.Addr(), mcpserver.MCPPath)
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// ceilingTarget is one server the comparison loads: a child process and
// the load's sessions on it.
type ceilingTarget struct {
	name     string
	url      string
	pid      int
	sessions []*loadSession
}

// startTarget starts the test binary as a child serving kind; the child ends
// with the benchmark.
func startTarget(b *testing.B, kind string, profile string) *ceilingTarget {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), ceilingServeEnv+"="+kind)
	if profile != "" {
		cmd.Env = append(cmd.Env, ceilingProfileEnv+"="+profile)
	}
	if *ceilingDataDir != "" {
		cmd.Env = append(cmd.Env, ceilingDataDirEnv+"="+*ceilingDataDir)
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("%s target: %v", kind, err)
	}
	return &ceilingTarget{name: kind, url: strings.TrimSpace(line), pid: cmd.Process.Pid}
}

// cpu returns the CPU time used so far by the target's process and by this
// one (the client).
func (t *ceilingTarget) cpu() (server, client time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		client = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", t.pid))
	if err != nil {
		return 0, client
	}
	// Fields after the parenthesised command: state is field 3, utime 14, stime 15.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	if len(f) < 13 {
		return 0, client
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	const clockTicks = 100 // USER_HZ on Linux
	return time.Duration(ut+st) * time.Second / clockTicks, client
}

// settle waits until the target's process has finished the work the load
// left behind (the fs backend writes its files in the background, after a
// delay) and returns its CPU time then, so that this work is charged to
// the target and does not slow the next one down.
func (t *ceilingTarget) settle() time.Duration {
	last, _ := t.cpu()
	for idle, start := 0, time.Now(); idle < 3 && time.Since(start) < 3*time.Second; {
		time.Sleep(100 * time.Millisecond)
		now, _ := t.cpu()
		if now == last {
			idle++
		} else {
			idle = 0
		}
		last = now
	}
	return last
}

// open opens the target's sessions once; later rounds reuse them.
func (t *ceilingTarget) open(b *testing.B, n int, hc *http.Client) {
	b.Helper()
	if t.sessions != nil {
		return
	}
	ss, err := openLoadSessions(t.url, n, hc)
	if err != nil {
		b.Fatalf("%s: %v", t.name, err)
	}
	t.sessions = ss
	b.Cleanup(func() { closeLoadSessions(ss) })
}

func medianOf(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkCeiling compares the reference server with the stack's ceiling
// in one run: a no-op mcp-go server with the same tool, the reference server
// with memory storage and with fs storage, each loaded closed-loop by
// -ceiling.sessions mcp-go client sessions over loopback HTTP (nine
// thoughts, then a read_thoughts), in -ceiling.rounds interleaved rounds of
// -ceiling.duration per target with the order rotated. It prints every
// round and reports the medians of calls/s and of the per-round ratios to
// the no-op server, and the CPU time per call of server and client (a
// figure that other work on the machine disturbs much less than
// throughput; the server's includes the background work a round leaves
// behind, which is allowed to finish before the next round starts); then,
// per target (the no-op server shows what the machine itself adds), the
// median over interleaved paced rounds of the thought p99 at half its
// median closed-loop rate. Each
// server is a child process (see ceilingServeEnv); client and servers share
// the machine's cores.
func BenchmarkCeiling(b *testing.B) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, DisableCompression: true}}
	targets := []*ceilingTarget{startTarget(b, "noop", ""), startTarget(b, "memory", ""), startTarget(b, "fs", "")}
	// Warm-up: sessions, connections, code paths and heaps of every target.
	for _, t := range targets {
		t.open(b, *ceilingSessions, hc)
		if _, err := closedLoad(t.sessions, 300*time.Millisecond); err != nil {
			b.Fatalf("%s: %v", t.name, err)
		}
	}
	rates := map[string][]float64{}
	ratios := map[string][]float64{}
	calls := map[string]int64{}
	serverCPU := map[string]time.Duration{}
	clientCPU := map[string]time.Duration{}
	b.ResetTimer()
	for range b.N {
		for round := range *ceilingRounds {
			got := map[string]float64{}
			for i := range targets {
				t := targets[(i+round)%len(targets)]
				s0, c0 := t.cpu()
				start := time.Now()
				n, err := closedLoad(t.sessions, *ceilingDuration)
				if err != nil {
					b.Fatalf("%s: %v", t.name, err)
				}
				elapsed := time.Since(start)
				_, c1 := t.cpu()
				s1 := t.settle()
				calls[t.name] += n
				serverCPU[t.name] += s1 - s0
				clientCPU[t.name] += c1 - c0
				got[t.name] = float64(n) / elapsed.Seconds()
				rates[t.name] = append(rates[t.name], got[t.name])
			}
			for _, name := range []string{"memory", "fs"} {
				ratios[name] = append(ratios[name], got[name]/got["noop"])
			}
			fmt.Printf("round %2d: noop %5.0f, memory %5.0f (%3.0f%%), fs %5.0f (%3.0f%%) calls/s\n", round+1,
				got["noop"], got["memory"], 100*got["memory"]/got["noop"], got["fs"], 100*got["fs"]/got["noop"])
		}
	}
	b.StopTimer()
	perCall := map[string]float64{}
	for _, t := range targets {
		srv := float64(serverCPU[t.name].Microseconds()) / float64(calls[t.name])
		cli := float64(clientCPU[t.name].Microseconds()) / float64(calls[t.name])
		perCall[t.name] = srv + cli
		fmt.Printf("%-6s median %5.0f calls/s; CPU per call: server %5.1f µs + client %5.1f µs = %5.1f µs\n", t.name,
			medianOf(rates[t.name]), srv, cli, srv+cli)
		b.ReportMetric(medianOf(rates[t.name]), t.name+"-calls/s")
		b.ReportMetric(srv, t.name+"-server-µs/call")
	}
	for _, name := range []string{"memory", "fs"} {
		fmt.Printf("%-6s %3.0f%% of noop (median of per-round ratios), %3.0f%% by CPU per call\n", name,
			100*medianOf(ratios[name]), 100*perCall["noop"]/perCall[name])
		b.ReportMetric(100*medianOf(ratios[name]), name+"-%-of-noop")
		b.ReportMetric(100*perCall["noop"]/perCall[name], name+"-%-of-noop-by-cpu")
	}
	if *ceilingPaced <= 0 {
		return
	}
	// Latency: each target paced at half its median closed-loop rate, in
	// interleaved rounds; a stall of the machine spoils one round, not the
	// figure.
	pacedRounds := max(1, *ceilingRounds/3)
	sched := map[string][]float64{}
	serv := map[string][]float64{}
	for round := range pacedRounds {
		for i := range targets {
			t := targets[(i+round)%len(targets)]
			a, s, err := pacedLoad(t.sessions, medianOf(rates[t.name])/2, *ceilingPaced)
			if err != nil {
				b.Fatalf("%s paced: %v", t.name, err)
			}
			t.settle()
			sched[t.name] = append(sched[t.name], float64(p99(a).Microseconds())/1000)
			serv[t.name] = append(serv[t.name], float64(p99(s).Microseconds())/1000)
		}
	}
	for _, t := range targets {
		fmt.Printf("%-6s paced at %.0f calls/s, %d rounds of %v: thought p99 %.2f ms from the scheduled start, %.2f ms service time (medians; rounds %v ms)\n",
			t.name, medianOf(rates[t.name])/2, pacedRounds, *ceilingPaced, medianOf(sched[t.name]), medianOf(serv[t.name]), sched[t.name])
		b.ReportMetric(medianOf(sched[t.name]), t.name+"-thought-p99-ms@half")
	}
}

// BenchmarkLoad loads the one target named by -ceiling.only closed-loop for
// b.N calls per session; -ceiling.cpuprofile makes the server write a CPU
// profile of itself alone.
func BenchmarkLoad(b *testing.B) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, DisableCompression: true}}
	t := startTarget(b, *ceilingOnly, *ceilingProfile)
	t.open(b, *ceilingSessions, hc)
	ss := t.sessions
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Go(func() {
			for range b.N {
				if _, err := s.next(context.Background()); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N*len(ss))/time.Since(start).Seconds(), "calls/s")
}
