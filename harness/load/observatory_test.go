package load_test

import (
	"context"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/load"
	"github.com/thoughtbox-bench/tbbench/harness/load/fanout"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
)

// TestObservatoryComparison runs the regression tier (two rounds) against
// the embedded server with its Observatory off and on, and the fan-out
// phase with clients subscribed to the on server: the report has the
// throughput ratio of both rounds, the cost, and every thought answered in
// the fan-out phase delivered to every client; the fan-out phase stays out
// of the summaries, and load.json with it matches its schema.
func TestObservatoryComparison(t *testing.T) {
	on := subject("memory+observatory", func(ctx context.Context) (target.Target, error) {
		return embedded.New(ctx, embedded.Options{Storage: "memory", Observatory: true})
	})
	opts := &load.ObservatoryOptions{Off: "memory", On: on.Label, FanOut: &fanout.Probe{Clients: 10}}
	rep, err := load.Run(context.Background(), load.Options{Tier: "regression", Workload: testWorkload(t),
		Subjects: []load.Subject{embeddedSubject("memory"), on}, OutDir: t.TempDir(), Observatory: opts})
	if err != nil {
		t.Fatal(err)
	}
	o := rep.Observatory
	if o == nil {
		t.Fatal("no observatory comparison in the report")
	}
	if o.ThroughputRatio.N != 2 || o.ThroughputRatio.Median <= 0 || o.Users == 0 || o.CostFigurePercent != 10 {
		t.Errorf("comparison %+v", o)
	}
	f := o.FanOut
	if f == nil || f.Note != "" || f.Clients != 10 || f.Thoughts == 0 || f.Missing != 0 || f.Deliveries != uint64(f.Thoughts)*10 {
		t.Fatalf("fan-out %+v", f)
	}
	fanOutPhases := 0
	for _, p := range rep.Phases {
		if strings.HasSuffix(p.Label, load.FanOutLabelSuffix) {
			fanOutPhases++
		}
	}
	if fanOutPhases != 1 || len(rep.Summaries) != 2 {
		t.Errorf("%d fan-out phases, %d summaries; want 1 and 2 (off, on)", fanOutPhases, len(rep.Summaries))
	}
	// load.json, with its observatory, is checked against its schema.
	if err := rep.WriteFiles(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if s := rep.Summary(); !strings.Contains(s, "observatory fan-out to 10 clients") || !strings.Contains(s, "the Observatory costs") {
		t.Errorf("the summary lacks the Observatory's lines:\n%s", s)
	}
}
