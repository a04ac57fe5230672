package conform_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/thoughtbox-bench/tbbench/harness/conform"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// durabilityTags selects the durability scenarios these tests run. The
// scenario with a second server process is left out: the reference server
// gains what it checks with issue 8, and the faults here are about the
// others.
const durabilityTags = "@durability && ~@second-process"

// behindProxy is a target whose MCP traffic goes through the broken server
// at url, while restarts, kills and the data directory are the inner
// target's (found through Unwrap).
type behindProxy struct {
	target.Target
	url string
}

func (b behindProxy) HTTPBase() string { return b.url }
func (b behindProxy) Dial(_ context.Context, _ *transcript.Recorder, o target.DialOptions) (transport.Interface, error) {
	return target.DialHTTP(b.url, o)
}
func (b behindProxy) Unwrap() target.Target { return b.Target }

// runDurability runs the durability scenarios against tg, stopping once
// stop holds for one (nil: never).
func runDurability(t *testing.T, tg target.Target, stop func(conform.ScenarioResult) bool) conform.Report {
	t.Helper()
	rep, err := conform.Run(context.Background(), conform.Options{Target: tg, OutDir: t.TempDir(),
		Required: []string{"core", "intent"}, Tags: durabilityTags, StopWhen: stop})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// durabilityCatchers names, for the durability faults aimed at one
// sentence of suite C, a scenario that must be among those that catch it.
var durabilityCatchers = map[brokenserver.Fault]string{
	brokenserver.DamageAdvancesStage:   "load_context reports a session",
	brokenserver.DamagedBecomesCurrent: "session resume reports a session",
	brokenserver.TornWrites:            "the files a manifest lists are whole after a kill during large writes",
}

// TestDurabilityFaultsAreCaught runs the durability scenarios through the
// broken server: without a fault, in front of the reference server in a
// child process (so that it can be killed), every scenario runs and passes;
// with each of brokenserver.DurabilityFaults, in front of the in-process
// server (quicker to restart; the kill scenarios do not apply) or, for
// brokenserver.KillFaults, the child, a required scenario fails (for the
// faults in durabilityCatchers, the scenario named there among others). These faults are not in brokenserver.All:
// TestEveryInjectedFaultIsCaught uses a URL target, to which the durability
// scenarios do not apply.
func TestDurabilityFaultsAreCaught(t *testing.T) {
	t.Parallel()
	child, err := embedded.New(context.Background(), embedded.Options{Storage: "fs", Process: true})
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	inProcess, err := embedded.New(context.Background(), embedded.Options{Storage: "fs"})
	if err != nil {
		t.Fatal(err)
	}
	defer inProcess.Close()
	for _, fault := range append([]brokenserver.Fault{brokenserver.None}, brokenserver.DurabilityFaults...) {
		name := string(fault)
		inner := inProcess
		if fault == brokenserver.None {
			name, inner = "no-fault", child
		}
		if slices.Contains(brokenserver.KillFaults, fault) {
			inner = child
		}
		t.Run(name, func(t *testing.T) {
			brokenserver.Proof(t, string(fault))
			proxy, err := brokenserver.New(inner.HTTPBase(), fault, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			proxy.SetDataDir(inner.Info().DataDir)
			srv := httptest.NewServer(proxy)
			defer srv.Close()
			// A fault with a catcher stops once it has caught it, one
			// without at its first catch; without a fault, all run.
			stop := stopWhenCaughtBy(durabilityCatchers[fault])
			if stop == nil && fault != brokenserver.None {
				stop = stopWhenCaught
			}
			rep := runDurability(t, behindProxy{Target: inner, url: srv.URL + "/mcp"}, stop)
			if fault == brokenserver.None {
				requirePass(t, rep)
				if passed, _, na := rep.Tally(); na > 0 || passed < 7 {
					t.Errorf("%d passed, %d not applicable: every durability scenario must run against a child process", passed, na)
				}
				return
			}
			caught := caughtBy(rep)
			if len(caught) == 0 || rep.RequiredPassed() {
				t.Fatalf("fault %s was not caught by any durability scenario", fault)
			}
			if want := durabilityCatchers[fault]; want != "" && !slices.ContainsFunc(caught, func(c string) bool { return strings.Contains(c, want) }) {
				t.Errorf("fault %s was not caught by %q, only by:\n%s", fault, want, strings.Join(caught, "\n"))
			}
			t.Logf("caught by %d scenarios, e.g. %s", len(caught), caught[0])
		})
	}
}

// TestDurabilityApplicability checks which durability scenarios apply: the
// in-process server restarts but can not be killed; a URL can do neither,
// and memory storage keeps nothing across a restart.
func TestDurabilityApplicability(t *testing.T) {
	fs, err := targetspec.Spec{Transport: "http", Storage: "fs", Direct: true}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	rep := runDurability(t, fs, nil)
	requirePass(t, rep)
	for _, s := range rep.Scenarios {
		killed := strings.Contains(s.Name, "kill")
		if killed != (s.Status == conform.NotApplicable) {
			t.Errorf("in-process server: %s is %s (%s)", s.Name, s.Status, s.Failure)
		}
	}

	url, err := targetspec.Spec{URL: fs.HTTPBase()}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer url.Close()
	mem, err := targetspec.Spec{Transport: "stdio", Storage: "memory"}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	for name, tg := range map[string]target.Target{"url": url, "stdio-memory": mem} {
		rep := runDurability(t, tg, nil)
		if passed, failed, na := rep.Tally(); passed+failed > 0 || na == 0 {
			t.Errorf("%s: %d passed, %d failed, %d not applicable; none applies", name, passed, failed, na)
		}
		for _, s := range rep.Scenarios {
			if s.Failure == "" {
				t.Errorf("%s: %s is not applicable without a reason", name, s.Name)
			}
		}
	}
}
