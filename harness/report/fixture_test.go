package report

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// loadLabels are the targets of the synthetic load run, with the median
// latency of each.
var loadLabels = []struct {
	label, kind string
	median      time.Duration
}{
	{"fs", scorecards.TargetEmbedded, 2 * time.Millisecond},
	{"memory", scorecards.TargetEmbedded, time.Millisecond},
	{loadreport.CeilingLabel, scorecards.TargetNoop, 300 * time.Microsecond},
}

// writeLoadRun writes a synthetic regression run into dir as load.json (and
// load.md, load.html): three targets, two rounds of four seconds each, and
// returns its report.
func writeLoadRun(t *testing.T, dir string) *loadreport.Report {
	t.Helper()
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r := &loadreport.Report{SchemaVersion: loadreport.SchemaVersion, RunID: "fixture", Tier: "regression", Seed: 1, Nonce: "fixture",
		Segments: []string{"1/1"}, Workload: "fixture.yaml", WorkloadHash: "0123456789abcdef",
		StartedAt: start, FinishedAt: start.Add(time.Minute), Machine: scorecards.CurrentMachine()}
	rng := rand.New(rand.NewPCG(1, 2))
	for k, l := range loadLabels {
		calls := 600 + 300*k // in four seconds: 150, 225 and 300 calls/s
		r.Targets = append(r.Targets, loadreport.TargetInfo{Label: l.label, Kind: l.kind, Address: "in-process", Transport: "http"})
		for round := 1; round <= 2; round++ {
			rec := metrics.NewRecorder(start, 1)
			for i := range calls {
				at := start.Add(time.Duration(i) * 4 * time.Second / time.Duration(calls))
				lat := time.Duration(float64(l.median) * rng.ExpFloat64())
				op := "thought"
				if i%4 == 0 {
					op = "read_thoughts"
				}
				rec.Record(0, metrics.Call{Op: op, Scheduled: at, Sent: at, Done: at.Add(lat)})
			}
			r.Phases = append(r.Phases, loadreport.PhaseResult{Name: fmt.Sprintf("%s round %d", l.label, round), Label: l.label,
				Round: round, Rate: float64(calls / 4), Users: 4, Target: l.label, Started: uint64(calls), Seconds: 4,
				Metrics: rec.Snapshot(start.Add(4 * time.Second))})
		}
	}
	merged, err := loadreport.Merge([]*loadreport.Report{r})
	if err != nil {
		t.Fatal(err)
	}
	if err := merged.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	return merged
}

// runCard returns the scorecard of a whole run: a conformance cell
// (correctness levels, observability checks with a failure) combined with
// the load run's performance and stability.
func runCard(rep *loadreport.Report) scorecards.Scorecard {
	conform := scorecards.Scorecard{SchemaVersion: scorecards.SchemaVersion, RunID: "fixture-conform",
		StartedAt: rep.StartedAt, FinishedAt: rep.FinishedAt, Machine: rep.Machine,
		Target: scorecards.Target{Name: "reference", Kind: scorecards.TargetEmbedded, Transport: "http", Storage: "fs"},
		Axes: []scorecards.Axis{
			scorecards.Correctness([]scorecards.LevelResult{
				{Level: scorecards.Core, Passed: 40, Required: true},
				{Level: scorecards.Intent, Passed: 11, Failed: 1, Required: true},
				{Level: scorecards.Quirk, Passed: 2, Failed: 6},
			}),
			scorecards.ChecksAxis(scorecards.AxisObservability, scorecards.DefaultWeight(scorecards.AxisObservability), []scorecards.Check{
				{Name: "metrics endpoint answers", Passed: true},
				{Name: "p99 agrees with the client", Passed: false, Detail: "server p99 1.1 ms, client 4.2 ms"},
				{Name: "traces exported", Passed: true},
			}),
		}}
	conform.Finish()
	return scorecards.Combine("fixture", []scorecards.Scorecard{conform, rep.Scorecard(scorecards.Harness{Version: "test"})})
}
