package load_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/noop"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// slowWatcher is a Watcher that needs time to get ready, as Prometheus does:
// it notes when each of its methods was called.
type slowWatcher struct {
	readyErr error
	mu       sync.Mutex
	calls    []string
	readyAt  time.Time
}

func (w *slowWatcher) note(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, s)
}

func (w *slowWatcher) Start(context.Context, []load.Watched) error { w.note("start"); return nil }

func (w *slowWatcher) Ready(context.Context) error {
	w.note("ready")
	w.readyAt = time.Now()
	return w.readyErr
}

func (w *slowWatcher) Finish(context.Context) ([]scorecards.Check, error) {
	w.note("finish")
	return []scorecards.Check{{Name: "seen", Passed: true}}, nil
}

func warmedUp(t *testing.T) *workload.Workload {
	t.Helper()
	w, err := workload.Parse("warm.yaml", []byte(`
session:
  thoughts: {min: 3, max: 3}
tiers:
  regression: {model: open, rate: 50, duration: 300ms, maxUsers: 4, rounds: 2, warmup: 300ms}
`))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func runWatched(t *testing.T, w load.Watcher) *load.Report {
	t.Helper()
	open := func(ctx context.Context) (target.Target, error) { return noop.New(ctx, noop.Options{}) }
	rep, err := load.Run(context.Background(), load.Options{Tier: workload.Regression, Workload: warmedUp(t), Seed: 2,
		Subjects: []load.Subject{subject(load.CeilingLabel, open)}, Watcher: w})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestWatcherIsReadyBetweenWarmUpAndRounds: a watcher that needs time to
// start is waited for after the warm-up, before the first measured round,
// and then finishes with its checks.
func TestWatcherIsReadyBetweenWarmUpAndRounds(t *testing.T) {
	w := &slowWatcher{}
	rep := runWatched(t, w)
	if got := strings.Join(w.calls, ","); got != "start,ready,finish" {
		t.Fatalf("calls %s, want start,ready,finish", got)
	}
	var order []string
	for _, p := range rep.Phases {
		if len(p.Metrics.Windows) == 0 {
			t.Fatalf("phase %s has no window", p.Name)
		}
		win := p.Metrics.Windows[0]
		switch {
		case p.Warmup && !win.End.Before(w.readyAt):
			t.Errorf("warm-up %s ended at %s, after the watcher was ready (%s)", p.Name, win.End, w.readyAt)
		case !p.Warmup && win.Start.Before(w.readyAt):
			t.Errorf("round %s started at %s, before the watcher was ready (%s)", p.Name, win.Start, w.readyAt)
		}
		order = append(order, fmt.Sprint(p.Warmup))
	}
	if got := strings.Join(order, ","); got != "true,false,false" {
		t.Errorf("phases (warm-up or not) %s", got)
	}
	if len(rep.Observability) != 1 || rep.ObservabilityNote != "" {
		t.Errorf("checks %+v, note %q", rep.Observability, rep.ObservabilityNote)
	}
}

// TestWatcherThatCannotGetReadyIsNotApplicable: a failed Ready makes the
// watch not applicable, with its reason, and Finish is not called.
func TestWatcherThatCannotGetReadyIsNotApplicable(t *testing.T) {
	w := &slowWatcher{readyErr: errors.New("no scrape in 30s")}
	rep := runWatched(t, w)
	if got := strings.Join(w.calls, ","); got != "start,ready" {
		t.Errorf("calls %s, want start,ready", got)
	}
	if len(rep.Observability) != 0 || !strings.Contains(rep.ObservabilityNote, "not applicable: no scrape in 30s") {
		t.Errorf("checks %+v, note %q", rep.Observability, rep.ObservabilityNote)
	}
}
