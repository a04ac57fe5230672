package load_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/thoughtbox-bench/tbbench/harness/load"
	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/harness/load/pace"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/noop"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// openRound is a workload whose regression tier is one open round of
// 500 ms, with sessions of the given number of thoughts.
func openRound(t *testing.T, thoughts, rate, users int) *workload.Workload {
	t.Helper()
	w, err := workload.Parse("open.yaml", fmt.Appendf(nil, `
session:
  thoughts: {min: %d, max: %[1]d}
tiers:
  regression: {model: open, rate: %d, duration: 500ms, maxUsers: %d, rounds: 1}
`, thoughts, rate, users))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// openWorkload's users cannot finish their first reasoning session (200
// thoughts each).
func openWorkload(t *testing.T) *workload.Workload { return openRound(t, 200, 100, 4) }

func runOpen(t *testing.T, open func(ctx context.Context) (target.Target, error)) loadreport.PhaseResult {
	t.Helper()
	return runOpenReport(t, pace.RealTimeOff, open).Phases[0]
}

func runOpenReport(t *testing.T, rt pace.RealTime, open func(ctx context.Context) (target.Target, error)) *load.Report {
	t.Helper()
	rep, err := load.Run(context.Background(), load.Options{Tier: workload.Regression, Workload: openWorkload(t), Seed: 5,
		Subjects: []load.Subject{subject(load.CeilingLabel, open)}, RealTime: rt})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Phases) != 1 {
		t.Fatalf("phases %v", names(rep.Phases))
	}
	return rep
}

// TestOpenPhaseSaysHowItPaced: an open phase says whether its scheduler
// waited at a real-time priority, and load.md says it too; where the
// priority is refused, auto runs without and says why.
func TestOpenPhaseSaysHowItPaced(t *testing.T) {
	permitted := pace.RealTimePermitted()
	noopTarget := func(ctx context.Context) (target.Target, error) { return noop.New(ctx, noop.Options{}) }
	for _, c := range []struct {
		mode     pace.RealTime
		pacer    string
		note, md string
	}{
		{pace.RealTimeOff, loadreport.PacerOrdinary, "", "ordinary priority"},
		{pace.RealTimeAuto, loadreport.PacerRealTime, "", "real-time priority"},
	} {
		if c.mode == pace.RealTimeAuto && permitted != nil {
			c.pacer, c.note, c.md = loadreport.PacerOrdinary, permitted.Error(), permitted.Error()
		}
		rep := runOpenReport(t, c.mode, noopTarget)
		p := rep.Phases[0]
		if p.Started == 0 || p.Pacer != c.pacer || p.PacerNote != c.note {
			t.Errorf("%v: %d started, pacer %q (%q), want %q (%q)", c.mode, p.Started, p.Pacer, p.PacerNote, c.pacer, c.note)
		}
		if md := rep.Markdown(); !strings.Contains(md, c.md) {
			t.Errorf("%v: load.md does not say %q:\n%s", c.mode, c.md, md)
		}
	}
}

// TestOpenPhaseConnectsItsUsersFirst: an open phase's users open their MCP
// sessions before the schedule starts, so its arrivals are the scripts'
// calls and none is an initialize.
func TestOpenPhaseConnectsItsUsersFirst(t *testing.T) {
	p := runOpen(t, func(ctx context.Context) (target.Target, error) { return noop.New(ctx, noop.Options{}) })
	tot := p.Metrics.Total()
	if p.Started == 0 || tot.Calls != p.Started || tot.Errors != 0 {
		t.Errorf("%d arrivals started, %d calls, %d errors", p.Started, tot.Calls, tot.Errors)
	}
	if n := p.Metrics.Op("initialize").Calls; n != 0 {
		t.Errorf("%d initialize calls measured: the users connected on the schedule", n)
	}
	if p.Metrics.Op("start_new").Calls == 0 {
		t.Error("no user began its script")
	}
}

// refusing is a target whose every connection fails.
type refusing struct{ target.Target }

func (refusing) Dial(context.Context, *transcript.Recorder, target.DialOptions) (transport.Interface, error) {
	return nil, errors.New("connection refused by the test")
}

// TestFailedSetUpIsCounted: a connection that fails before the schedule is
// counted as a failed initialize like one on the schedule.
func TestFailedSetUpIsCounted(t *testing.T) {
	p := runOpen(t, func(ctx context.Context) (target.Target, error) {
		tg, err := noop.New(ctx, noop.Options{})
		return refusing{tg}, err
	})
	failed := uint64(0)
	for _, c := range p.Metrics.Op("initialize").ErrorClasses {
		failed += c.Count
	}
	// Every arrival tried to connect, and so did every user before them.
	if want := p.Started + uint64(p.Users); p.Started == 0 || failed != want {
		t.Errorf("%d failed initialize calls, want %d (%d arrivals, %d users)", failed, want, p.Started, p.Users)
	}
}

// TestStdioMemoryIsNotVerified: over stdio with memory storage each MCP
// session is a server process whose thoughts end with it, so the read-back
// does not apply; it is said so, and nothing counts as lost. Over stdio
// with fs storage the read-back applies and finds every thought.
func TestStdioMemoryIsNotVerified(t *testing.T) {
	w := openRound(t, 2, 20, 2)
	for _, storage := range []string{"memory", "fs"} {
		t.Run(storage, func(t *testing.T) {
			rep, err := load.Run(context.Background(), load.Options{Tier: workload.Regression, Workload: w, Seed: 2,
				Subjects: []load.Subject{subject(storage, func(ctx context.Context) (target.Target, error) {
					return embedded.New(ctx, embedded.Options{Transport: target.Stdio, Storage: storage})
				})}})
			if err != nil {
				t.Fatal(err)
			}
			v := rep.Phases[0].Verification
			if v == nil || v.Acknowledged == 0 {
				t.Fatalf("verification %+v", v)
			}
			if rep.Verdict != load.VerdictPass || rep.Lost() != 0 {
				t.Errorf("verdict %s, %d lost: %v", rep.Verdict, rep.Lost(), rep.Problems)
			}
			if storage == "fs" {
				if !v.Applicable || v.Reason != "" || rep.Unverifiable() != 0 {
					t.Errorf("fs over stdio: %+v", v)
				}
				return
			}
			if v.Applicable || v.Reason == "" || rep.Unverifiable() != v.Acknowledged {
				t.Errorf("memory over stdio: %+v", v)
			}
			if !strings.Contains(rep.Markdown(), "not applicable") {
				t.Error("load.md does not say why the thoughts were not read back")
			}
		})
	}
}
