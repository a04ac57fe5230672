package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/procstat"
	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// RestartResult is what a restart of the server on its stored sessions
// shows: how long it takes to answer again and how much memory it holds.
type RestartResult struct {
	// StartupMs is the time from the moment the old server process was
	// gone to the first answered list_sessions of the new one: process
	// start, loading the stored sessions, the first call.
	StartupMs float64 `json:"startupMs"`
	// RSSBeforeBytes is the server's resident memory with the sessions
	// stored, before the restart; RSSAfterBytes right after the restarted
	// server first answered. Zero when the server is not one child process
	// of the harness (in-process, stdio, a URL).
	RSSBeforeBytes int64 `json:"rssBeforeBytes"`
	RSSAfterBytes  int64 `json:"rssAfterStartBytes"`
	// Kept reports whether every session the harness created is still
	// listed after the restart (false for volatile storage).
	Kept bool `json:"kept"`
	// Note says why the restart was not measured ("" when it was).
	Note string `json:"note,omitempty"`
}

// startupBudget bounds the wait for a restarted server's first answer.
const startupBudget = 2 * time.Minute

// measureRestart restarts the server on its data and times its start-up;
// created is how many sessions the harness stored.
func (r *runner) measureRestart(ctx context.Context, tg target.Target, created int) *RestartResult {
	rs, ok := target.As[target.StoppedRestarter](tg)
	if !ok {
		return &RestartResult{Note: "the harness cannot restart this target"}
	}
	out := &RestartResult{}
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
	res, err := c.CallTool(ctx, workload.Tool, map[string]any{"operation": "list_sessions", "args": map[string]any{}})
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
	res, err := c.CallTool(ctx, workload.Tool, map[string]any{"operation": "session",
		"args": map[string]any{"operation": "list", "offset": offset, "limit": 1}})
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
	res, err := c.CallTool(ctx, workload.Tool, map[string]any{"operation": "start_new",
		"args": map[string]any{"newWork": map[string]any{"project": workload.Project}}})
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
func (r *runner) measureReadLast(ctx context.Context, tg target.Target, session, label string) (ReadLastFigures, bool) {
	c, err := target.Connect(ctx, tg, transcript.Discard(), target.ConnOptions{})
	if err != nil {
		r.errors.Notef("long session %s: read_thoughts: %v", label, err)
		return ReadLastFigures{}, false
	}
	defer c.Close()
	for _, step := range []struct {
		op   string
		args map[string]any
	}{{"load_context", map[string]any{"sessionId": session}}, {"cipher", map[string]any{}}} {
		res, err := c.CallTool(ctx, workload.Tool, map[string]any{"operation": step.op, "args": step.args})
		if err == nil && res.IsError {
			err = errors.New(res.Text())
		}
		if err != nil {
			r.errors.Notef("long session %s: %s before read_thoughts: %v", label, step.op, err)
			return ReadLastFigures{}, false
		}
	}
	var ds []time.Duration
	for range readLastSamples {
		sent := time.Now()
		res, err := c.CallTool(ctx, workload.Tool, map[string]any{"operation": "read_thoughts", "args": map[string]any{"last": 5}})
		d := time.Since(sent)
		if err != nil || res.IsError {
			r.errors.Notef("long session %s: read_thoughts {last: 5}: %v %s", label, err, res.Text())
			return ReadLastFigures{}, false
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return ReadLastFigures{P50Ms: ms(ds[len(ds)/2]), P99Ms: ms(ds[(len(ds)*99)/100]), Calls: len(ds)}, true
}

// title names a listing result in tables: its label, marked when it was
// measured after the restart.
func (l ListingResult) title() string {
	if l.AfterRestart {
		return l.Label + " (restarted)"
	}
	return l.Label
}

// readLastCell renders the read_thoughts {last: 5} figures ("—" when they
// were not measured), the direct ones beside them when there are some.
func (l LongSessionResult) readLastCell() string {
	if l.ReadLastCalls == 0 {
		return "—"
	}
	cell := fmt.Sprintf("%.3f / %.3f", l.ReadLastP50Ms, l.ReadLastP99Ms)
	if d := l.ReadLastDirect; d != nil {
		cell += fmt.Sprintf(" (direct %.3f / %.3f)", d.P50Ms, d.P99Ms)
	}
	return cell
}

func mb(bytes int64) string {
	if bytes == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f", float64(bytes)/(1<<20))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
