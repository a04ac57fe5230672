package diff_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/diff"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
)

func open(t *testing.T, s targetspec.Spec) target.Target {
	t.Helper()
	tg, err := s.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// TestDiff plays the same sessions against the reference server twice
// (two storage backends): the ledgers agree on every comparison, and the
// exports were compared. Against the broken server with a numbering fault
// and with an export fault, each difference is found where it is.
func TestDiff(t *testing.T) {
	ref := open(t, targetspec.Spec{Transport: "http", Storage: "memory"})
	other := open(t, targetspec.Spec{Transport: "http", Storage: "fs"})
	rep, err := diff.Run(context.Background(), diff.Side{Label: "memory", Target: ref}, diff.Side{Label: "fs", Target: other},
		diff.Options{Sessions: 3, Seed: 7, Nonce: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Differences) != 0 {
		t.Errorf("the same server differs from itself: %+v", rep.Differences)
	}
	if rep.Thoughts == 0 || rep.Checks < 4*rep.Thoughts || len(rep.NotCompared) != 0 || rep.A.Profile != "gateway" {
		t.Errorf("compared too little: %d thoughts, %d checks, not compared %q, profile %q", rep.Thoughts, rep.Checks, rep.NotCompared, rep.A.Profile)
	}

	bin := filepath.Join(t.TempDir(), "broken-thoughtbox")
	if out, err := exec.Command("go", "build", "-o", bin, "../testdata/brokenserver/cmd/broken-thoughtbox").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for fault, what := range map[string]string{"off-by-one-numbering": "thoughtNumber", "export-without-revisions": "revisesNode"} {
		broken := open(t, targetspec.Spec{Command: bin + " --port {port} --storage memory --fault " + fault, Transport: "http"})
		rep, err := diff.Run(context.Background(), diff.Side{Label: "reference", Target: ref}, diff.Side{Label: fault, Target: broken},
			diff.Options{Sessions: 3, Seed: 7, Nonce: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Differences) == 0 {
			t.Errorf("%s: no difference found", fault)
		}
		for _, d := range rep.Differences {
			if !strings.Contains(d.What, what) {
				t.Errorf("%s: a difference in %q, want only %s: %+v", fault, d.What, what, d)
			}
		}
	}
}
