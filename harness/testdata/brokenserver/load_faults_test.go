package brokenserver_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// reference starts the reference server in process with memory storage.
func reference(t *testing.T) target.Target {
	t.Helper()
	ref, err := embedded.New(context.Background(), embedded.Options{Storage: "memory"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Close() })
	return ref
}

// through puts a proxy with fault in front of ref and opens an MCP session
// through it with mcp-go's client.
func through(t *testing.T, ref target.Target, fault brokenserver.Fault) *target.Conn {
	t.Helper()
	ctx := context.Background()
	proxy, err := brokenserver.New(ref.HTTPBase(), fault, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	tg, err := target.NewURL(ctx, srv.URL+"/mcp", target.URLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := target.Connect(ctx, tg, transcript.Discard(), target.ConnOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// begin starts a reasoning session and enters the thought stage.
func begin(t *testing.T, c *target.Conn) {
	t.Helper()
	ctx := context.Background()
	for _, step := range []struct {
		op   string
		args any
	}{{"start_new", map[string]any{"newWork": map[string]any{"project": "load-faults"}}}, {"cipher", nil}} {
		if res, err := c.Gateway(ctx, step.op, step.args); err != nil || res.IsError {
			t.Fatalf("%s: %v %s", step.op, err, res.Text())
		}
	}
}

func thoughtText(n int) string { return fmt.Sprintf("load-fault thought number %d", n) }

func TestLoadFaultsAreApartFromAll(t *testing.T) {
	want := []brokenserver.Fault{"slow-calls", "loses-thoughts", "fails-calls"}
	if !slices.Equal(brokenserver.LoadFaults, want) {
		t.Fatalf("LoadFaults = %v, want %v", brokenserver.LoadFaults, want)
	}
	for _, f := range brokenserver.LoadFaults {
		if slices.Contains(brokenserver.All, f) {
			t.Errorf("load fault %s is in All, which the conformance suite must catch", f)
		}
	}
}

func TestSlowCallsDelayEveryCall(t *testing.T) {
	c := through(t, reference(t), brokenserver.SlowCalls)
	ctx := context.Background()
	calls := []struct {
		op   string
		args any
	}{
		{"start_new", map[string]any{"newWork": map[string]any{"project": "slow"}}},
		{"cipher", nil},
		{"thought", map[string]any{"thought": thoughtText(1), "thoughtNumber": 1, "totalThoughts": 2, "nextThoughtNeeded": true}},
		{"read_thoughts", map[string]any{"thoughtNumber": 1}},
	}
	for _, call := range calls {
		start := time.Now()
		res, err := c.Gateway(ctx, call.op, call.args)
		took := time.Since(start)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", call.op, err, res.Text())
		}
		if took < brokenserver.SlowCallDelay {
			t.Errorf("%s took %v, want at least %v", call.op, took, brokenserver.SlowCallDelay)
		}
	}
}

func TestLosesThoughtsAcknowledgesWithoutKeeping(t *testing.T) {
	c := through(t, reference(t), brokenserver.LosesThoughts)
	ctx := context.Background()
	begin(t, c)
	const n = 2 * brokenserver.LoseEvery
	var session string
	for i := 1; i <= n; i++ {
		res, err := c.Gateway(ctx, "thought", map[string]any{"thought": thoughtText(i), "thoughtNumber": i,
			"totalThoughts": n + 1, "nextThoughtNeeded": true})
		if err != nil || res.IsError {
			t.Fatalf("thought %d: %v %s", i, err, res.Text())
		}
		ans, err := res.JSON()
		if err != nil {
			t.Fatalf("thought %d: %v", i, err)
		}
		if ans["thoughtNumber"] != float64(i) {
			t.Errorf("thought %d acknowledged as number %v", i, ans["thoughtNumber"])
		}
		if i == 1 {
			session, _ = ans["sessionId"].(string)
		}
		if ans["sessionId"] != session || session == "" {
			t.Errorf("thought %d acknowledged in session %v, want %q", i, ans["sessionId"], session)
		}
	}
	for i := 1; i <= n; i++ {
		res, err := c.Gateway(ctx, "read_thoughts", map[string]any{"sessionId": session, "thoughtNumber": i})
		if err != nil {
			t.Fatalf("read thought %d: %v", i, err)
		}
		lost := i%brokenserver.LoseEvery == 0
		kept := !res.IsError && strings.Contains(res.Text(), thoughtText(i))
		if lost == kept {
			t.Errorf("thought %d: lost=%v but read back %v: %s", i, lost, kept, res.Text())
		}
	}
}

func TestFailsCallsInjectsErrorsAnd503(t *testing.T) {
	c := through(t, reference(t), brokenserver.FailsCalls)
	ctx := context.Background()
	for i := 1; i <= 2*brokenserver.FailEvery; i++ {
		_, err := c.CallTool(ctx, "thoughtbox_gateway", map[string]any{"operation": "cipher"})
		var rpc *target.RPCError
		switch {
		case i%brokenserver.FailEvery == 0:
			if !errors.As(err, &rpc) || rpc.Code != brokenserver.FailCode || rpc.Message != brokenserver.FailMessage {
				t.Errorf("call %d: got %v, want JSON-RPC error %d %q", i, err, brokenserver.FailCode, brokenserver.FailMessage)
			}
		case i%brokenserver.FailEvery == brokenserver.FailEvery/2:
			if err == nil || errors.As(err, &rpc) || !strings.Contains(err.Error(), "503") {
				t.Errorf("call %d: got %v, want an error naming status 503", i, err)
			}
		default:
			if err != nil {
				t.Errorf("call %d: %v, want it to pass", i, err)
			}
		}
	}
}
