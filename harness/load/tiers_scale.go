package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/loadreport"
	"github.com/thoughtbox-bench/tbbench/harness/load/procstat"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// startupBudget bounds the wait for a restarted server's first answer.
const startupBudget = 2 * time.Minute

// measureRestart restarts the server on its data and times its start-up;
// created is how many sessions the harness stored.
func (r *runner) measureRestart(ctx context.Context, tg target.Target, created int) *loadreport.RestartResult {
	rs, ok := target.As[target.StoppedRestarter](tg)
	if !ok {
		return &loadreport.RestartResult{Note: "the harness cannot restart this target"}
	}
	out := &loadreport.RestartResult{}
	proc, hasPID := target.As[target.Processer](tg)
	rss := func() int64 {
		if !hasPID || proc.PID() == 0 {
			return 0
		}
		s, err := procstat.Read(proc.PID())
		if err != nil {
			return 0
		}
		return s.RSS
	}
	out.RSSBeforeBytes = rss()
	var stopped time.Time
	if err := rs.RestartWhileStopped(ctx, false, func() error { stopped = time.Now(); return nil }); err != nil {
		out.Note = "restart failed: " + err.Error()
		return out
	}
	for {
		err := firstList(ctx, tg)
		if err == nil {
			break
		}
		if ctx.Err() != nil || time.Since(stopped) > startupBudget {
			out.Note = fmt.Sprintf("the restarted server did not answer list_sessions within %s: %v", startupBudget, err)
			return out
		}
		time.Sleep(5 * time.Millisecond)
	}
	out.StartupMs = ms(time.Since(stopped))
	out.RSSAfterBytes = rss()
	out.Kept = created == 0 || sessionListed(ctx, tg, created-1)
	return out
}

// firstList connects and calls list_sessions once.
func firstList(ctx context.Context, tg target.Target) error {
	c, err := target.Connect(ctx, tg, transcript.Discard(), target.ConnOptions{})
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := c.Gateway(ctx, "list_sessions", map[string]any{})
	if err == nil && res.IsError {
		err = errors.New(res.Text())
	}
	return err
}

// sessionListed reports whether session list has a session at offset.
func sessionListed(ctx context.Context, tg target.Target, offset int) bool {
	c, err := target.Connect(ctx, tg, transcript.Discard(), target.ConnOptions{})
	if err != nil {
		return false
	}
	defer c.Close()
	if openToolhost(ctx, c) != nil {
		return false
	}
	res, err := c.Gateway(ctx, "session", map[string]any{"operation": "list", "offset": offset, "limit": 1})
	if err != nil || res.IsError {
		return false
	}
	var page struct {
		Count int `json:"count"`
	}
	return json.Unmarshal([]byte(res.Text()), &page) == nil && page.Count == 1
}

// openToolhost reaches the stage the session toolhost needs (start_new
// stores nothing: a session starts with its first thought).
func openToolhost(ctx context.Context, c *target.Conn) error {
	res, err := c.Gateway(ctx, "start_new", map[string]any{"newWork": map[string]any{"project": workload.Project}})
	if err == nil && res.IsError {
		err = errors.New(res.Text())
	}
	return err
}

// readLastSamples is how many read_thoughts {last: 5} calls the long-session
// tier times on the finished session.
const readLastSamples = 200

// measureReadLast loads the long session on a new MCP session of tg and
// times read_thoughts {last: 5}, one call at a time.
func (r *runner) measureReadLast(ctx context.Context, tg target.Target, session, label string) (loadreport.ReadLastFigures, bool) {
	c, err := target.Connect(ctx, tg, transcript.Discard(), target.ConnOptions{})
	if err != nil {
		r.errors.Notef("long session %s: read_thoughts: %v", label, err)
		return loadreport.ReadLastFigures{}, false
	}
	defer c.Close()
	for _, step := range []struct {
		op   string
		args map[string]any
	}{{"load_context", map[string]any{"sessionId": session}}, {"cipher", map[string]any{}}} {
		res, err := c.Gateway(ctx, step.op, step.args)
		if err == nil && res.IsError {
			err = errors.New(res.Text())
		}
		if err != nil {
			r.errors.Notef("long session %s: %s before read_thoughts: %v", label, step.op, err)
			return loadreport.ReadLastFigures{}, false
		}
	}
	var ds []time.Duration
	for range readLastSamples {
		sent := time.Now()
		res, err := c.Gateway(ctx, "read_thoughts", map[string]any{"last": 5})
		d := time.Since(sent)
		if err != nil || res.IsError {
			r.errors.Notef("long session %s: read_thoughts {last: 5}: %v %s", label, err, res.Text())
			return loadreport.ReadLastFigures{}, false
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return loadreport.ReadLastFigures{P50Ms: ms(ds[len(ds)/2]), P99Ms: ms(ds[(len(ds)*99)/100]), Calls: len(ds)}, true
}
