package load

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/harness/load/metrics"
	"github.com/thoughtbox-bench/tbbench/harness/load/pace"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// longSession runs one virtual user through one reasoning session of
// t.Thoughts main-chain thoughts and compares the ends.
func (r *runner) longSession(ctx context.Context, t workload.Tier, label string, tg target.Target, rep *loadreport.Report) loadreport.LongSessionResult {
	// Thoughts only, so that the ends compare like with like.
	shape := r.o.Workload.Session.WithThoughts(t.Thoughts)
	shape.ThinkTime = workload.DurationRange{}
	shape.Branch, shape.Revision, shape.ReadThoughts, shape.GetStructure, shape.SessionList, shape.SessionGet = 0, 0, 0, 0, 0, 0
	steps := len(shape.Script(r.o.Seed, 0, 0))
	var costs []time.Duration
	var closing time.Duration
	var session string
	spec := PhaseSpec{Name: "long-session " + label, Label: label, Target: tg, Users: 1, Closed: true,
		Thresholds: t.Thresholds, Verify: true, Session: &shape,
		// initialize, the script, and the DELETE.
		Executor: &pace.Closed{Users: 1, Iterations: uint64(steps + 2), GracefulStop: 5 * time.Second},
		OnSample: func(s sample) {
			switch {
			case s.Class != outcome.OK:
			case s.Op == string(workload.OpThought) || s.Op == string(workload.OpRevision):
				costs = append(costs, s.Done.Sub(s.Sent))
			case s.Op == string(workload.OpClose):
				closing = s.Done.Sub(s.Sent)
			}
		},
		OnAck: func(id string) { session = id }}
	rep.Phases = append(rep.Phases, r.runPhase(ctx, spec))
	out := loadreport.LongSessionResult{Label: label, Thoughts: len(costs), Window: t.Window, CloseMs: ms(closing)}
	if session != "" && ctx.Err() == nil {
		if f, ok := r.measureReadLast(ctx, tg, session, out.Label); ok {
			out.ReadLastP50Ms, out.ReadLastP99Ms, out.ReadLastCalls = f.P50Ms, f.P99Ms, f.Calls
		}
		if inner := target.Unwrap(tg); inner != tg {
			if f, ok := r.measureReadLast(ctx, inner, session, out.Label+" (direct)"); ok {
				out.ReadLastDirect = &f
			}
		}
	}
	w := min(t.Window, len(costs)/2)
	if w == 0 {
		return out
	}
	out.FirstMs, out.LastMs = ms(median(costs[:w])), ms(median(costs[len(costs)-w:]))
	if out.FirstMs > 0 {
		out.Ratio = out.LastMs / out.FirstMs
	}
	if len(costs) >= 10 {
		out.TenthMs = ms(costs[9])
	}
	out.LastThoughtMs = ms(costs[len(costs)-1])
	return out
}

// listing stores sessions up to each of t.Sessions and measures the listing
// operations with each number.
func (r *runner) listing(ctx context.Context, t workload.Tier, label string, tg target.Target, rep *loadreport.Report) []loadreport.ListingResult {
	var out []loadreport.ListingResult
	var ids []string
	stored := 0
	for _, n := range t.Sessions {
		if ctx.Err() != nil {
			break
		}
		made, err := r.populate(ctx, label, tg, n-stored, rep)
		ids = append(ids, made...)
		stored += len(made)
		if err != nil {
			r.errors.Notef("listing %s: storing sessions: %v", label, err)
		}
		res := loadreport.ListingResult{Label: label, Sessions: n, Created: stored}
		res.Metrics = r.measureListing(ctx, tg, ids, t.Samples)
		res.FillOps()
		out = append(out, res)
	}
	if len(out) == 0 || ctx.Err() != nil {
		return out
	}
	// Restart on the largest number: start-up time and memory, then the
	// listing again on the restarted server.
	last := out[len(out)-1]
	after := loadreport.ListingResult{Label: label, Sessions: last.Sessions, Created: stored, AfterRestart: true,
		Restart: r.measureRestart(ctx, tg, stored)}
	after.Metrics = metrics.NewRecorder(time.Now(), 1).Snapshot(time.Now())
	if after.Restart.Note == "" {
		if !after.Restart.Kept {
			ids = nil // the sessions are gone: load_context would fail
		}
		after.Metrics = r.measureListing(ctx, tg, ids, t.Samples)
	}
	after.FillOps()
	return append(out, after)
}

// populate creates n small reasoning sessions (start_new, cipher, two
// thoughts) with eight users and returns their ids.
func (r *runner) populate(ctx context.Context, label string, tg target.Target, n int, rep *loadreport.Report) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	shape := workload.Session{Thoughts: workload.IntRange{Min: 2, Max: 2}, ThoughtBytes: workload.IntRange{Min: 64, Max: 64}, ListLimit: 1}
	const users = 8
	// initialize, start_new, cipher, two thoughts, DELETE.
	spec := PhaseSpec{Name: fmt.Sprintf("listing %s: store %d sessions", label, n), Label: label, Target: tg, Users: users,
		Session: &shape, Executor: &pace.Closed{Users: users, Iterations: uint64(6 * n), GracefulStop: 5 * time.Second}}
	var ids []string
	spec.OnAck = func(session string) { ids = append(ids, session) }
	p := r.runPhase(ctx, spec)
	rep.Phases = append(rep.Phases, p)
	return ids, ctx.Err()
}

// measureListing times samples calls of each listing operation, one at a
// time on one MCP session, and samples/10 new MCP sessions.
func (r *runner) measureListing(ctx context.Context, tg target.Target, ids []string, samples int) *metrics.Snapshot {
	rec := metrics.NewRecorder(time.Now(), 1)
	record := func(op workload.Op, sent time.Time, err error, res target.ToolResult) {
		class := Classify(err)
		if class == outcome.OK {
			class = ""
		}
		msg := ""
		if err != nil {
			msg = err.Error()
		} else if res.IsError {
			class, msg = outcome.ToolError, res.Text()
		}
		rec.Record(0, metrics.Call{Op: string(op), Class: class, Message: msg, Scheduled: sent, Sent: sent, Done: time.Now()})
	}
	for range max(samples/10, 1) {
		sent := time.Now()
		c, err := target.Connect(ctx, tg, transcript.Discard(), target.ConnOptions{})
		record(workload.OpInitialize, sent, err, target.ToolResult{})
		if err == nil {
			c.Close()
		}
	}
	c, err := target.Connect(ctx, tg, transcript.Discard(), target.ConnOptions{})
	if err != nil {
		record(workload.OpListSessions, time.Now(), err, target.ToolResult{})
		return rec.Snapshot(time.Now())
	}
	defer c.Close()
	// The session toolhost needs the stage start_new (or load_context) opens.
	if err := openToolhost(ctx, c); err != nil {
		record(workload.OpSessionList, time.Now(), err, target.ToolResult{})
		return rec.Snapshot(time.Now())
	}
	rng := rand.New(rand.NewPCG(uint64(r.o.Seed), 7))
	gw := func(op workload.Op, operation string, args map[string]any) {
		sent := time.Now()
		res, err := c.Gateway(ctx, operation, args)
		record(op, sent, err, res)
	}
	for range samples {
		gw(workload.OpListSessions, "list_sessions", map[string]any{})
		gw(workload.OpSessionList, "session", map[string]any{"operation": "list", "limit": 20})
		// Every stored session carries the project tag: the search reads
		// them all and answers a page.
		gw(workload.OpSessionSearch, "session", map[string]any{"operation": "search", "query": workload.Project})
		if len(ids) > 0 {
			gw(workload.OpLoadContext, "load_context", map[string]any{"sessionId": ids[rng.IntN(len(ids))]})
		}
	}
	return rec.Snapshot(time.Now())
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
