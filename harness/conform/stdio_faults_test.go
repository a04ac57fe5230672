package conform_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/conform"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
)

// stdioFaultTags selects the scenarios the stdio framing faults run
// against: any scenario talks to the server; these are few and quick.
const stdioFaultTags = "@gating"

// framingFailure is what a failure caused by a stdout line that is not a
// JSON-RPC message says.
const framingFailure = "is not a JSON-RPC message"

// TestStdioFramingFaultsAreCaught runs scenarios against the broken stdio
// server (a relay in front of the reference server, this test binary run
// again) in both stdio cells: the relay without a fault passes them, and
// with each of brokenserver.StdioFaults they fail because of the lines it
// writes to stdout, which the transcripts record. A banner written at
// start-up is reported by the start-up result too. Over HTTP, stdout is
// the server's log: these faults do not apply there.
func TestStdioFramingFaultsAreCaught(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, storage := range []string{"memory", "fs"} {
		for _, fault := range append([]brokenserver.Fault{brokenserver.None}, brokenserver.StdioFaults...) {
			name := string(fault)
			if fault == brokenserver.None {
				name = "no-fault"
			}
			t.Run("stdio-"+storage+"/"+name, func(t *testing.T) {
				// Most of each run is waiting for processes to start.
				t.Parallel()
				brokenserver.Proof(t, string(fault), "stdio", storage)
				env := []string{brokenserver.StdioEnv(fault), "THOUGHTBOX_STORAGE=" + storage, "THOUGHTBOX_DATA_DIR=" + t.TempDir(),
					"DISABLE_THOUGHT_LOGGING=true", "THOUGHTBOX_CRITIQUE_TIMEOUT=" + embedded.CritiqueTimeout.String(),
					// With -race every process sleeps a second when it
					// exits; the relay and its server would take longer
					// than a stdio server is given to end after its stdin.
					"GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")}
				env = append(env, target.SelfChildEnv()...) // the relay's server inherits it
				tg, err := target.NewCommand(context.Background(), target.CommandOptions{Argv: []string{exe}, Transport: target.Stdio, Env: env})
				if err != nil {
					t.Fatal(err)
				}
				defer tg.Close()
				rep, err := conform.Run(context.Background(), conform.Options{Target: tg, OutDir: t.TempDir(),
					Required: []string{"core", "intent"}, Tags: stdioFaultTags})
				if err != nil {
					t.Fatal(err)
				}
				if fault == brokenserver.None {
					requirePass(t, rep)
					return
				}
				var caught []string
				startup := false
				for _, s := range rep.Scenarios {
					if s.Status != conform.Failed || s.Level == "quirk" {
						continue
					}
					if !strings.Contains(s.Failure, framingFailure) {
						t.Errorf("%s failed for another reason: %s", s.Name, s.Failure)
						continue
					}
					data, err := os.ReadFile(s.Transcript)
					if err != nil || !strings.Contains(string(data), `"kind":"defect"`) {
						t.Errorf("%s: the transcript %s does not record the defect (%v)", s.Name, filepath.Base(s.Transcript), err)
					}
					startup = startup || s.Name == conform.StartupScenario
					caught = append(caught, s.Name+": "+firstLine(strings.SplitN(s.Failure, "\n", 2)[1]))
				}
				if len(caught) == 0 || rep.RequiredPassed() {
					t.Fatalf("fault %s was not caught by any scenario", fault)
				}
				if fault == brokenserver.StdoutBanner && !startup {
					t.Errorf("the banner at start-up is not reported before the first scenario")
				}
				t.Logf("caught by %d results, e.g. %s", len(caught), caught[0])
			})
		}
	}
}
