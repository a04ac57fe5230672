package load_test

import (
	"context"
	"errors"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/load"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/noop"
)

// TestSideBySideRunsTheSubjectsTogether: with sideBySide, the phases of
// each round (the two subjects' and the ceiling's) overlap in time, and
// every phase is still reported with its own calls.
func TestSideBySideRunsTheSubjectsTogether(t *testing.T) {
	w, err := workload.Parse("sbs.yaml", []byte(`
tiers:
  regression: {model: open, rate: 100, duration: 400ms, maxUsers: 8, rounds: 2, sideBySide: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	open := func(ctx context.Context) (target.Target, error) { return noop.New(ctx, noop.Options{}) }
	rep, err := load.Run(context.Background(), load.Options{Tier: workload.Regression, Workload: w, Seed: 3,
		Subjects: []load.Subject{subject("a", open), subject("b", open), subject(load.CeilingLabel, open)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Phases) != 6 {
		t.Fatalf("phases %v, want 3 per round", names(rep.Phases))
	}
	for round := 1; round <= 2; round++ {
		byLabel := map[string]int{}
		for i, p := range rep.Phases {
			if p.Round == round {
				byLabel[p.Label] = i
			}
		}
		a, b, c := rep.Phases[byLabel["a"]], rep.Phases[byLabel["b"]], rep.Phases[byLabel[load.CeilingLabel]]
		wa, wb, wc := a.Metrics.Windows[0], b.Metrics.Windows[0], c.Metrics.Windows[0]
		if !wa.Start.Before(wb.End) || !wb.Start.Before(wa.End) {
			t.Errorf("round %d: a ran %v–%v and b %v–%v, one after the other", round, wa.Start, wa.End, wb.Start, wb.End)
		}
		if !wc.Start.Before(wa.End) || !wa.Start.Before(wc.End) {
			t.Errorf("round %d: a ran %v–%v and the ceiling %v–%v, one after the other", round, wa.Start, wa.End, wc.Start, wc.End)
		}
		for _, p := range []string{"a", "b", load.CeilingLabel} {
			if rep.Phases[byLabel[p]].Metrics.Total().Calls == 0 {
				t.Errorf("round %d: %s made no call", round, p)
			}
		}
	}
}

// TestGatewayTiersRefuseOtherFamilies: the listing and long-session tiers
// read sessions back with the gateway's operations; a subject of another
// family is refused before anything runs.
func TestGatewayTiersRefuseOtherFamilies(t *testing.T) {
	open := func(ctx context.Context) (target.Target, error) { return noop.New(ctx, noop.Options{}) }
	for _, tier := range []string{workload.Listing, workload.LongSession} {
		s := subject("seq", open)
		s.Profile = profile.SequentialThinking
		_, err := load.Run(context.Background(), load.Options{Tier: tier, Workload: workload.Default(), Subjects: []load.Subject{s}})
		if !errors.Is(err, load.ErrFamily) {
			t.Errorf("%s against a sequential-thinking subject: %v, want ErrFamily", tier, err)
		}
	}
}
