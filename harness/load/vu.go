package load

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/workload"
	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/outcome"
)

// sample is one measured call.
type sample struct {
	Op    string
	Class string
	// Message is the error's text (empty for ClassOK).
	Message string
	// Scheduled is when the call was due, Sent when it went out, Done when
	// its answer (or error) came back.
	Scheduled, Sent, Done time.Time
}

// phase is what the virtual users of one measured run share.
type phase struct {
	target   target.Target
	profile  profile.Profile // the target's family
	notReady atomic.Int64    // calls retried while a gateway was not ready
	session  *workload.Session
	seed     int64
	userBase int // index of the first user (segments take disjoint ranges)
	nonce    string
	think    bool // closed model: pause before calls
	timeout  time.Duration
	record   func(user int, s sample)
	acks     *acks
	// recorders give each user its transcript: the first users' are
	// files, the others' count only.
	recorder func(user int) *transcript.Recorder
	errors   *transcript.Recorder
	// answered, when set, is told when the answer to each acknowledged
	// main-chain thought arrived (the Observatory's fan-out probe).
	answered func(session string, thought int, at time.Time)
}

// vu is one virtual user: one MCP session at a time, living reasoning
// sessions from the workload's script, one call per iteration.
type vu struct {
	p     *phase
	index int // global user index

	conn      *target.Conn
	ops       profile.Ops // the family's operations on conn
	session   int         // reasoning sessions started so far
	script    []workload.Step
	pos       int
	sessionID string
}

func newVU(p *phase, local int) *vu {
	return &vu{p: p, index: p.userBase + local}
}

// step makes the user's next call, measured from scheduled.
func (v *vu) step(ctx context.Context, scheduled time.Time) {
	if v.p.think && v.conn != nil && v.pos < len(v.script) {
		if d := v.script[v.pos].Think; d > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(d):
			}
			scheduled = time.Now()
		}
	}
	ctx, cancel := context.WithTimeout(ctx, v.p.timeout)
	defer cancel()
	switch {
	case v.conn == nil:
		v.connect(ctx, scheduled)
	case v.pos >= len(v.script):
		v.disconnect(scheduled)
	default:
		v.call(ctx, scheduled, v.script[v.pos])
		v.pos++
	}
}

func (v *vu) connect(ctx context.Context, scheduled time.Time) {
	sent := time.Now()
	c, err := target.Connect(ctx, v.p.target, v.p.recorder(v.index), target.ConnOptions{})
	v.finish(string(workload.OpInitialize), scheduled, sent, err, nil)
	if err == nil {
		v.opened(c)
	}
}

// opened starts the user's next reasoning session on the new connection c:
// the script's steps the target's family has.
func (v *vu) opened(c *target.Conn) {
	v.conn, v.ops = c, v.p.profile.Open(c)
	v.script = v.p.session.Script(v.p.seed, v.index, v.session)
	if v.p.profile != profile.Gateway {
		v.script = slices.DeleteFunc(v.script, func(s workload.Step) bool { return !v.p.profile.Supports(s.Operation) })
	}
	v.session++
	v.pos, v.sessionID = 0, ""
}

// userSample is a call of one user.
type userSample struct {
	user   int
	sample sample
}

// prepare opens every user's first MCP session, all at once, before an open
// phase's schedule starts, as k6 initialises its pre-allocated users before
// the first iteration. Otherwise the phase would begin with the whole pool
// connecting within its first arrivals (64 users in 21 ms at 3,000 calls/s),
// a storm steady state never has, which delays the schedule and drops
// arrivals. These connections are set-up, not measured calls: a failed one
// is returned to be recorded like any failed call (it is in the errors
// transcript already), and that user's first iteration connects again. The
// whole set-up gets one call timeout.
func prepare(ctx context.Context, p *phase, users []*vu) []userSample {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	var mu sync.Mutex
	var failed []userSample
	var wg sync.WaitGroup
	for _, u := range users {
		wg.Go(func() {
			sent := time.Now()
			c, err := target.Connect(ctx, p.target, p.recorder(u.index), target.ConnOptions{})
			if err != nil {
				s := u.outcome(string(workload.OpInitialize), sent, sent, err, nil)
				mu.Lock()
				failed = append(failed, userSample{u.index, s})
				mu.Unlock()
				return
			}
			u.opened(c)
		})
	}
	wg.Wait()
	return failed
}

func (v *vu) disconnect(scheduled time.Time) {
	sent := time.Now()
	v.p.notReady.Add(v.conn.NotReadyRetries())
	err := v.conn.Close()
	v.conn = nil
	v.finish(string(workload.OpDelete), scheduled, sent, err, nil)
}

// abandon ends the MCP session after a failure that leaves the rest of the
// script meaningless; the next iteration connects anew.
func (v *vu) abandon() {
	if v.conn != nil {
		v.p.notReady.Add(v.conn.NotReadyRetries())
		v.conn.Close()
		v.conn = nil
	}
}

func (v *vu) call(ctx context.Context, scheduled time.Time, s workload.Step) {
	args := make(map[string]any, len(s.Args)+1)
	for k, val := range s.Args {
		args[k] = val
	}
	marker := ""
	if s.TextBytes > 0 {
		marker = fmt.Sprintf("[%s u%d s%d p%d]", v.p.nonce, v.index, v.session, v.pos)
		args["thought"] = thoughtText(marker, s.TextBytes)
	}
	if s.FillSessionID {
		args["sessionId"] = v.sessionID
	}
	sent := time.Now()
	res, err := v.ops.Do(ctx, s.Operation, args)
	arrived := time.Now()
	v.finish(string(s.Op), scheduled, sent, err, &res)
	switch {
	case err != nil:
		v.abandon()
	case res.IsError && (s.Operation == "start_new" || s.Operation == "cipher"):
		v.abandon()
	case !res.IsError && s.RecordsThought():
		var ans struct {
			ThoughtNumber int    `json:"thoughtNumber"`
			SessionID     string `json:"sessionId"`
			// The closing thought names the session it closed here.
			Closed string `json:"closedSessionId"`
		}
		if json.Unmarshal([]byte(res.Text()), &ans) == nil && ans.SessionID == "" {
			ans.SessionID = ans.Closed
		}
		if ans.SessionID == "" && !v.p.profile.Supports(profile.ReadBack) {
			// A family without reads names no reasoning session: its
			// thoughts are this MCP session's, which no later one reads.
			ans.SessionID = fmt.Sprintf("(MCP session of user %d, session %d)", v.index, v.session)
		}
		if ans.SessionID == "" || ans.ThoughtNumber == 0 {
			v.p.errors.Notef("user %d: thought answer without thoughtNumber and sessionId: %.300s", v.index, res.Text())
			return
		}
		v.sessionID = ans.SessionID
		v.p.acks.add(ans.SessionID, ack{Chain: s.Records.Branch, Number: ans.ThoughtNumber, Marker: marker})
		if v.p.answered != nil && s.Records.Branch == "" {
			v.p.answered(ans.SessionID, ans.ThoughtNumber, arrived)
		}
	}
}

// finish records a call's outcome; every error also goes to the errors
// transcript.
func (v *vu) finish(op string, scheduled, sent time.Time, err error, res *target.ToolResult) {
	v.p.record(v.index, v.outcome(op, scheduled, sent, err, res))
}

// outcome is the sample of a call that ends now; an error also goes to the
// errors transcript.
func (v *vu) outcome(op string, scheduled, sent time.Time, err error, res *target.ToolResult) sample {
	s := sample{Op: op, Class: Classify(err), Scheduled: scheduled, Sent: sent, Done: time.Now()}
	if err != nil {
		s.Message = err.Error()
	} else if res != nil && res.IsError {
		s.Class, s.Message = outcome.ToolError, res.Text()
	}
	if s.Class != outcome.OK {
		v.p.errors.Add(transcript.Entry{Kind: transcript.Note, Method: op,
			Text: fmt.Sprintf("user %d session %d step %d: %s: %s", v.index, v.session, v.pos, s.Class, clip(s.Message, 2000))})
	}
	return s
}

// thoughtText is a thought of n bytes that starts with marker.
func thoughtText(marker string, n int) string {
	const filler = " weighing the evidence before the next step;"
	var b strings.Builder
	b.Grow(n)
	b.WriteString(marker)
	for b.Len() < n {
		b.WriteString(filler)
	}
	return b.String()[:max(n, len(marker))]
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
