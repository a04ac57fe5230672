package load_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/load"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/noop"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
)

// brokenCommand builds the one-process broken server and returns a subject
// that starts it as a child with fault.
func brokenCommand(t *testing.T, bin, label string, fault brokenserver.Fault, flags string) load.Subject {
	t.Helper()
	f := string(fault)
	if f == "" {
		f = "none"
	}
	return subject(label, func(ctx context.Context) (target.Target, error) {
		return target.NewCommand(ctx, target.CommandOptions{Command: bin + " --fault " + f + " --port {port}" + flags, Transport: target.HTTP})
	})
}

// TestABRunCatchesAPlantedRegression measures two builds of one server as
// child processes in one interleaved run, as a CI job on one runner does:
// the base, a twin of it, and a head whose every thought burns 1 ms more
// server CPU (about a third more per call: a regression no noise hides). The head's CPU per call against the base's fails
// its relative threshold; the twin's does not.
func TestABRunCatchesAPlantedRegression(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "broken-thoughtbox")
	if out, err := exec.Command("go", "build", "-o", bin, "../testdata/brokenserver/cmd/broken-thoughtbox").CombinedOutput(); err != nil {
		t.Fatalf("building the broken server: %v\n%s", err, out)
	}
	w, err := workload.Parse("ab.yaml", []byte(`
session:
  thoughts: {min: 4, max: 8}
  thoughtBytes: {min: 100, max: 300}
tiers:
  regression:
    model: open
    rate: 400
    duration: 1500ms
    maxUsers: 32
    rounds: 6
    warmup: 1s
    thresholds:
      errors: ["rate<0.1%"]
      ratio{vs:baseline}: ["cpu_per_call<1.05"]
    ceiling:
      dropped: ["rate<5%"]
`))
	if err != nil {
		t.Fatal(err)
	}
	ceiling := subject(load.CeilingLabel, func(ctx context.Context) (target.Target, error) {
		return noop.New(ctx, noop.Options{Process: true})
	})
	rep, err := load.Run(context.Background(), load.Options{Tier: workload.Regression, Workload: w, Seed: 5, Baseline: "base",
		Subjects: []load.Subject{brokenCommand(t, bin, "base", brokenserver.None, ""), brokenCommand(t, bin, "twin", brokenserver.None, ""),
			brokenCommand(t, bin, "head", brokenserver.CostlyThought, " --thought-cpu 1ms"), ceiling}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Phases {
		if p.Process != nil {
			t.Logf("%s: pid %d, %.3f s CPU, %d calls, %.0f µs/call, %d thoughts; the client %.0f µs/call", p.Name, p.Process.PID, p.Process.CPUSeconds,
				p.Metrics.Total().Calls, p.Process.CPUPerCallUs, p.Metrics.Op("thought").Calls, p.ClientCPUPerCallUs)
			// Every server here is a child: the client's own time is
			// measured apart from it.
			if p.Metrics.Total().Calls > 0 && p.ClientCPUPerCallUs <= 0 {
				t.Errorf("%s: no client CPU per call beside a child server", p.Name)
			}
		}
	}
	for _, s := range rep.Summaries {
		if s.ClientCPUPerCallUs == nil || s.ClientCPUPerCallUs.Median <= 0 {
			t.Errorf("%s: no client CPU per call over the rounds", s.Label)
		}
	}
	status := map[string]string{}
	for _, o := range rep.Relative {
		if o.Selector == "ratio{vs:baseline}" {
			status[o.Subject] = o.Status
		}
	}
	for _, x := range rep.Ratios {
		if x.Versus == "baseline" && (x.Figure == "cpu_per_call" || x.Op == "thought") {
			t.Logf("%s / base CPU per call: %s", x.Subject, x)
		}
	}
	if status["head"] != "failed" {
		t.Errorf("the head's planted CPU regression: %q, want failed (%s)", status["head"], rep.Inconclusive)
	}
	if status["twin"] == "failed" {
		t.Errorf("the same build as the base failed its CPU threshold")
	}
	if rep.Verdict != load.VerdictFail || !rep.ThresholdsFailed() {
		t.Errorf("verdict %s, want fail on the threshold", rep.Verdict)
	}
	if rep.Lost() != 0 {
		t.Errorf("%d thoughts lost", rep.Lost())
	}
}
