package robust_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/robust"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
)

// TestReferenceRefusesTheWholeCatalogue runs the catalogue against the
// reference server over HTTP: every input is refused (or, at a limit,
// answered), the server keeps answering and nothing changes, read back
// through MCP and in the data directory.
func TestReferenceRefusesTheWholeCatalogue(t *testing.T) {
	refusesTheCatalogue(t, targetspec.Spec{Transport: "http", Storage: "fs", Direct: true})
}

// TestReferenceRefusesTheWholeCatalogueStdio is the same over stdio, where
// the server is a child process, which the race detector does not watch:
// make test runs it without the race detector.
func TestReferenceRefusesTheWholeCatalogueStdio(t *testing.T) {
	refusesTheCatalogue(t, targetspec.Spec{Transport: "stdio", Storage: "fs", Direct: true})
}

// refusesTheCatalogue sends the catalogue to the reference server spec
// opens and checks every result.
func refusesTheCatalogue(t *testing.T, spec targetspec.Spec) {
	tg, err := spec.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if tg.Info().DataDir == "" {
		t.Fatal("the embedded target reports no data directory: the files would not be checked")
	}
	inputs := robust.Catalogue()
	if spec.Transport == "stdio" {
		// Over stdio every fourth input: the wire inputs do not
		// apply, and the tool inputs are the same as over HTTP
		// (make run sends the whole catalogue in both transports).
		inputs = every(inputs, 4)
	}
	results, err := robust.Run(context.Background(), tg, robust.Options{Inputs: inputs, CritiqueTimeout: embedded.CritiqueTimeout, Timeout: answerBound})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if !r.Passed && !r.NotApplicable {
			t.Errorf("%s: %s", r.Name, r.Detail)
		}
	}
	passed, _, na := robust.Tally(results)
	t.Logf("%d passed, %d not applicable of %d", passed, na, len(results))
}

// TestMain lets the test binary serve as the embedded server's child
// process for the stdio target.
func TestMain(m *testing.M) {
	embedded.ServeIfRequested()
	os.Exit(m.Run())
}

func every(in []robust.Input, n int) []robust.Input {
	var out []robust.Input
	for i, x := range in {
		if i%n == 0 {
			out = append(out, x)
		}
	}
	return out
}

// answerBound bounds each answer and read-back in these tests: a guard
// against a hang, not a figure. The 4 MiB body at the limit, answered by a
// race-detected server and recorded by a race-detected harness, took over
// the 20 s default on a busy machine.
const answerBound = 2 * time.Minute
