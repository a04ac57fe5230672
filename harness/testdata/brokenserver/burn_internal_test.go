package brokenserver

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestBurnSpendsCPUTime asks burn for 20 ms of CPU and reads the thread's
// CPU clock around it: CPU time, unlike wall time, does not depend on how
// busy the machine is, so the lower bound holds on any machine.
func TestBurnSpendsCPUTime(t *testing.T) {
	const want = 20 * time.Millisecond
	if unitsFor(0) != 0 || unitsFor(-time.Millisecond) != 0 || unitsFor(time.Nanosecond) != 1 {
		t.Errorf("unitsFor(0, -1ms, 1ns) = %d, %d, %d; want 0, 0, 1", unitsFor(0), unitsFor(-time.Millisecond), unitsFor(time.Nanosecond))
	}
	if burnFor(0) != 0 || burnFor(-time.Millisecond) != 0 {
		t.Errorf("burnFor ran units for no time")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	n := burnFor(want)
	if got := threadCPU() - start; got < want {
		t.Errorf("burnFor(%v) spent %v of thread CPU time in %d units, want at least %v", want, got, n, want)
	}
}

// TestCostlyThoughtBurnsForThoughtsOnly sends calls through a CostlyThought
// proxy to an upstream that records them: only thoughtbox_gateway thought
// calls burn (the proxy's count of work units, and the process's CPU time),
// and every call reaches the upstream and comes back unchanged.
func TestCostlyThoughtBurnsForThoughtsOnly(t *testing.T) {
	defer func(d time.Duration) { ThoughtCPU = d }(ThoughtCPU)
	ThoughtCPU = 5 * time.Millisecond
	var mu sync.Mutex
	var forwarded [][]byte
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		forwarded = append(forwarded, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"echo":%q}}`, body)
	}))
	defer upstream.Close()
	p, err := New(upstream.URL+"/mcp", CostlyThought, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if p.load.cpu != ThoughtCPU {
		t.Fatalf("%v of CPU per thought, want ThoughtCPU's %v", p.load.cpu, ThoughtCPU)
	}
	proxy := httptest.NewServer(p)
	defer proxy.Close()
	post := func(body string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, proxy.URL+"/mcp", bytes.NewReader([]byte(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Session-Id", "mcp-1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"echo":%q}}`, body); string(got) != want {
			t.Errorf("answer %s, want the upstream's %s", got, want)
		}
	}
	call := func(tool, op string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"operation":"` + op +
			`","args":{"thought":"t","thoughtNumber":1,"totalThoughts":2,"nextThoughtNeeded":true}}}}`
	}
	others := []string{call("thoughtbox_gateway", "cipher"), call("thoughtbox_gateway", "read_thoughts"), call("other_tool", "thought"),
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}
	for _, body := range others {
		post(body)
	}
	if n := p.load.burned.Load(); n != 0 {
		t.Errorf("calls other than thoughts burned %d units", n)
	}

	const thoughts = 4
	before := processCPU(t)
	for range thoughts {
		post(call("thoughtbox_gateway", "thought"))
	}
	spent := processCPU(t) - before
	if n := p.load.burned.Load(); n < thoughts {
		t.Errorf("%d thoughts burned %d units, want at least one each", thoughts, n)
	}
	if want := thoughts * ThoughtCPU; spent < want {
		t.Errorf("%d thoughts took %v of process CPU time, want at least %v", thoughts, spent, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(forwarded) != len(others)+thoughts {
		t.Errorf("%d calls reached the upstream, want %d", len(forwarded), len(others)+thoughts)
	}
}

// processCPU returns the CPU time of this process (user and system).
func processCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
