package promwatch_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/load"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/promwatch"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/noop"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

// prometheusBinary fails the test (never skips it) when Debian's
// prometheus package is missing; CI and make test install it.
func prometheusBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus not found on PATH: apt-get install -y prometheus (make test does)")
	}
	return p
}

func smokeWorkload(t *testing.T) *workload.Workload {
	t.Helper()
	w, err := workload.Parse("test.yaml", []byte(`
session:
  thoughts: {min: 4, max: 8}
tiers:
  smoke:
    model: closed
    users: 2
    duration: 2s
`))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// behindSidecar opens the embedded server (memory) behind the sidecar.
func behindSidecar(ctx context.Context) (target.Target, error) {
	return targetspec.Spec{Storage: "memory"}.Open(ctx)
}

func run(t *testing.T, w *promwatch.Watcher, open func(context.Context) (target.Target, error)) *load.Report {
	t.Helper()
	rep, err := load.Run(context.Background(), load.Options{Tier: workload.Smoke, Workload: smokeWorkload(t), Seed: 3,
		Subjects: []load.Subject{{Label: "memory", Open: open}}, Watcher: w})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestEveryPanelAndAlertHasDataAfterALoadRun scrapes the sidecar in front
// of the reference server with a real Prometheus during a smoke run: every
// dashboard query and alert rule returns data, and the scorecard gets an
// observability axis of 100 %.
func TestEveryPanelAndAlertHasDataAfterALoadRun(t *testing.T) {
	w := &promwatch.Watcher{Binary: prometheusBinary(t), Dir: t.TempDir()}
	rep := run(t, w, behindSidecar)
	if rep.ObservabilityNote != "" {
		t.Fatalf("watch not applied: %s", rep.ObservabilityNote)
	}
	// 1 probe, 33 panel queries, 7 alert rules.
	if len(rep.Observability) < 41 {
		t.Errorf("only %d checks", len(rep.Observability))
	}
	for _, c := range rep.Observability {
		if !c.Passed {
			t.Errorf("%s: %s", c.Name, c.Detail)
		}
	}
	card := rep.Scorecard(scorecards.Harness{Version: "test"})
	a, ok := card.Axis(scorecards.AxisObservability)
	if !ok || a.Score == nil || *a.Score != 1 {
		t.Errorf("observability axis %+v", a)
	}
	if !strings.Contains(rep.Summary(), "every dashboard panel query and alert rule returns data") {
		t.Errorf("the summary does not mention the check:\n%s", rep.Summary())
	}
	for _, f := range []string{"prometheus.yml", "alerts.yml", "probe.jsonl"} {
		if _, err := os.Stat(filepath.Join(w.Dir, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(w.Dir, "data")); !os.IsNotExist(err) {
		t.Errorf("the TSDB was left behind: %v", err)
	}
}

// TestAPanelOfTrafficARunDidNotHaveIsNotApplicable: in the 2026-07-28
// era no notification passes (there is no notifications/initialized), so
// the notifications panel has nothing to show: not applicable, with the
// reason, and every other check passes.
func TestAPanelOfTrafficARunDidNotHaveIsNotApplicable(t *testing.T) {
	w := &promwatch.Watcher{Binary: prometheusBinary(t), Dir: t.TempDir()}
	rep := run(t, w, func(ctx context.Context) (target.Target, error) {
		return targetspec.Spec{Storage: "memory", Era: target.Era2026}.Open(ctx)
	})
	na := 0
	for _, c := range rep.Observability {
		switch {
		case c.NotApplicable:
			na++
			if c.Name != `panel "Notifications by method" query A returns data` || !strings.Contains(c.Detail, "no notification passed through the sidecar") {
				t.Errorf("not applicable: %s: %s", c.Name, c.Detail)
			}
		case !c.Passed:
			t.Errorf("%s: %s", c.Name, c.Detail)
		}
	}
	if na != 1 {
		t.Errorf("%d checks not applicable, want the notifications panel's", na)
	}
	a, _ := rep.Scorecard(scorecards.Harness{}).Axis(scorecards.AxisObservability)
	if a.Score == nil || *a.Score != 1 || !strings.Contains(a.Summary, "1 not applicable") {
		t.Errorf("observability axis %+v", a)
	}
	if !strings.Contains(rep.Summary(), "not applicable: panel \"Notifications by method\"") {
		t.Errorf("the summary does not say what was not applicable:\n%s", rep.Summary())
	}
}

// otherMetrics serves another /metrics than its sidecar's, as a sidecar
// that lost its metrics would.
type otherMetrics struct {
	target.Target
	url string
}

func (o otherMetrics) MetricsURL() string    { return o.url }
func (o otherMetrics) Unwrap() target.Target { return o.Target }

// TestMissingMetricsFailTheChecks: a sidecar whose /metrics holds none of
// the dashboard's series fails the panel and alert checks; an empty
// notifications panel is not excused without the sidecar's message
// counter, nor when that counter counted notifications.
func TestMissingMetricsFailTheChecks(t *testing.T) {
	for name, body := range map[string]string{
		"other metrics":         "some_other_metric 1",
		"notifications counted": `mcp_sidecar_messages_total{direction="in",kind="notification",server_name="x"} 5`,
	} {
		t.Run(name, func(t *testing.T) {
			bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				fmt.Fprintln(w, body)
			}))
			defer bare.Close()
			w := &promwatch.Watcher{Binary: prometheusBinary(t), Dir: t.TempDir()}
			rep := run(t, w, func(ctx context.Context) (target.Target, error) {
				f, err := behindSidecar(ctx)
				if err != nil {
					return nil, err
				}
				return otherMetrics{f, bare.URL + "/metrics"}, nil
			})
			failed := map[string]bool{}
			for _, c := range rep.Observability {
				if c.Failed() {
					failed[c.Name] = true
				}
			}
			for _, name := range []string{`panel "Request rate" query A returns data`, "alert MCPHighErrorRate: evaluated without error, its signal returns data",
				`panel "Notifications by method" query A returns data`} {
				if !failed[name] {
					t.Errorf("%q passed without the sidecar's metrics", name)
				}
			}
			if a, _ := rep.Scorecard(scorecards.Harness{}).Axis(scorecards.AxisObservability); a.Score == nil || *a.Score > 0.5 {
				t.Errorf("observability axis %+v", a)
			}
		})
	}
}

// TestNotApplicable: without a sidecar's /metrics, or without Prometheus,
// the run goes on and says why the watch did not apply.
func TestNotApplicable(t *testing.T) {
	direct := func(ctx context.Context) (target.Target, error) { return noop.New(ctx, noop.Options{}) }
	rep := run(t, &promwatch.Watcher{Dir: t.TempDir()}, direct)
	if len(rep.Observability) != 0 || !strings.Contains(rep.ObservabilityNote, "no target has a sidecar") {
		t.Errorf("direct target: %d checks, note %q", len(rep.Observability), rep.ObservabilityNote)
	}
	rep = run(t, &promwatch.Watcher{Binary: "/nonexistent/prometheus", Dir: t.TempDir()}, behindSidecar)
	if len(rep.Observability) != 0 || !strings.Contains(rep.ObservabilityNote, "prometheus not found") {
		t.Errorf("no Prometheus: %d checks, note %q", len(rep.Observability), rep.ObservabilityNote)
	}
	if a, _ := rep.Scorecard(scorecards.Harness{}).Axis(scorecards.AxisObservability); a.Measured() {
		t.Errorf("an observability axis without checks: %+v", a)
	}
}
