// Package steps holds the godog step definitions: the language the feature
// files are written in ("Given a reasoning session at stage cipher_loaded",
// "When I record thoughts 5 down to 1", ...). Every step talks to the server
// under test only through a recorded MCP session (or, for HTTP-level checks,
// a recorded raw HTTP request).
package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/thoughtbox-bench/tbbench/fixtures"
	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// Env is what every scenario of a run shares.
type Env struct {
	Target target.Target
	// Profile maps the steps' operations onto the target's family of
	// servers (default profile.Gateway).
	Profile profile.Profile
	// Nonce is the run's random nonce; every thought text carries it so
	// cached or canned answers fail.
	Nonce string
	// CallTimeout bounds one call (default 20 s).
	CallTimeout time.Duration
	// Era is the MCP wire era every connection speaks (default 2025-11-25).
	Era target.Era

	mu     sync.Mutex
	counts transcript.Counts
}

// AddCounts adds a finished scenario's request counts to the run's.
func (e *Env) AddCounts(c transcript.Counts) {
	e.mu.Lock()
	e.counts.Merge(c)
	e.mu.Unlock()
}

// Counts returns the requests the harness sent during the run.
func (e *Env) Counts() transcript.Counts {
	e.mu.Lock()
	defer e.mu.Unlock()
	var c transcript.Counts
	c.Merge(e.counts)
	return c
}

// World is the state of one scenario.
type World struct {
	env  *Env
	rec  *transcript.Recorder
	ctx  context.Context
	name string

	conns   map[string]*target.Conn
	ops     map[*target.Conn]profile.Ops // the profile's operations on each
	current string
	lacks   *profile.LacksError // what the family lacks that a step needed
	full    bool                // every thought asks for the full answer ("verbose")

	// The last answers, which Then steps judge.
	last     target.ToolResult
	lastOp   string
	lastHTTP target.HTTPResponse
	// lastResult is the result of the last request a step sent itself.
	lastResult json.RawMessage
	tools      json.RawMessage // the last tools/list
	resource   string          // the last resource read
	export     []byte          // the last export read
	elapsed    time.Duration   // how long the last call took

	// What the scenario recorded and named.
	numbers  []int             // the thought numbers the answers gave
	counter  int               // thoughts recorded
	vars     fixtures.Bindings // values remembered by name
	sessions map[string]string // reasoning sessions remembered by name

	replay  replayState  // golden sequences and the sidecar's transparency (golden_steps.go)
	surface surfaceState // resources, prompts, completion (surface_steps.go)

	durability durabilityState // restarts, kills, damage, a second process (durability_steps.go)

	own target.Target // a server of the scenario's own (knowledge_steps.go)

	events eventState // event file and stand-in services (events_steps.go)
	obs    obsState   // Observatory clients (observatory_steps.go)

	figures  figuresState // golden-session figures (figures_steps.go)
	limits   limitsState  // defaults and limits (limits_steps.go)
	restarts restartState // restart coverage and atomic writes (restart_steps.go)
}

// NewWorld starts the state of a scenario whose transcript goes to rec.
func NewWorld(ctx context.Context, env *Env, rec *transcript.Recorder, name string) *World {
	return &World{env: env, rec: rec, ctx: ctx, name: name, conns: map[string]*target.Conn{}, ops: map[*target.Conn]profile.Ops{}, vars: fixtures.Bindings{},
		sessions: map[string]string{}, current: defaultConn, durability: durabilityState{kept: map[string][]byte{}}}
}

// Reset prepares the world for a new scenario recorded in rec.
func (w *World) Reset(rec *transcript.Recorder, name string) {
	*w = *NewWorld(w.ctx, w.env, rec, name)
}

// Close ends every MCP session of the scenario (DELETE over HTTP) and
// returns the quirks they tolerated. Defects the transcript recorded (a
// stdio server's stdout lines that are not JSON-RPC messages) fail the
// scenario here, whatever its steps found.
func (w *World) Close() (quirks []string, err error) {
	names := make([]string, 0, len(w.conns))
	for n := range w.conns {
		names = append(names, n)
	}
	sort.Strings(names)
	quirks = append(quirks, w.durability.quirks...)
	var errs []error
	for _, n := range names {
		c := w.conns[n]
		quirks = append(quirks, c.Quirks()...)
		if cerr := c.Close(); cerr != nil {
			errs = append(errs, fmt.Errorf("closing session %q: %w", n, cerr))
		}
	}
	w.conns = map[string]*target.Conn{}
	w.obs.close()
	if w.durability.sibling != nil {
		if cerr := w.durability.sibling.Close(); cerr != nil {
			errs = append(errs, fmt.Errorf("stopping the second server process: %w", cerr))
		}
		w.durability.sibling = nil
	}
	if w.own != nil {
		if cerr := w.own.Close(); cerr != nil {
			errs = append(errs, fmt.Errorf("stopping the scenario's own server: %w", cerr))
		}
		w.own = nil
	}
	w.events.close()
	// Closing waited for the servers' output to end: every defect is in.
	if d := w.rec.Defects(); len(d) > 0 {
		errs = append(errs, DefectsError(d))
	}
	return quirks, errors.Join(errs...)
}

// DefectsError is the failure of a scenario or a start-up in whose traffic
// the transcript recorded defects.
func DefectsError(defects []string) error {
	shown := defects
	if len(shown) > 5 {
		shown = append(append([]string{}, shown[:5]...), fmt.Sprintf("… and %d more", len(defects)-5))
	}
	return fmt.Errorf("the server sent what no conforming server may send (%d defects):\n%s", len(defects), strings.Join(shown, "\n"))
}

func (w *World) timeout() time.Duration {
	if w.env.CallTimeout > 0 {
		return w.env.CallTimeout
	}
	return 20 * time.Second
}

// connect opens the named MCP session.
func (w *World) connect(name string, o target.ConnOptions) error {
	return w.connectTo(w.env.Target, name, o)
}

// connectTo opens the named MCP session with tg.
func (w *World) connectTo(tg target.Target, name string, o target.ConnOptions) error {
	if old := w.conns[name]; old != nil {
		w.durability.quirks = append(w.durability.quirks, old.Quirks()...)
		_ = old.Close()
		delete(w.ops, old)
	}
	ctx, cancel := context.WithTimeout(w.ctx, w.timeout())
	defer cancel()
	if o.Era == "" {
		o.Era = w.env.Era
	}
	c, err := target.Connect(ctx, tg, w.rec, o)
	if err != nil {
		return fmt.Errorf("opening MCP session %q: %w", name, err)
	}
	w.conns[name] = c
	w.current = name
	return nil
}

// conn returns the current MCP session, opening it if needed.
func (w *World) conn() (*target.Conn, error) {
	if c := w.conns[w.current]; c != nil {
		return c, nil
	}
	if err := w.connect(w.current, target.ConnOptions{}); err != nil {
		return nil, err
	}
	return w.conns[w.current], nil
}

// Lacks returns what the target's family lacks that a step of the scenario
// needed (nil when nothing): such a scenario is not applicable.
func (w *World) Lacks() *profile.LacksError { return w.lacks }

// do makes domain operation op on MCP session c through the run's profile.
func (w *World) do(ctx context.Context, c *target.Conn, op string, args any) (target.ToolResult, error) {
	o := w.ops[c]
	if o == nil {
		p := w.env.Profile
		if p == nil {
			p = profile.Gateway
		}
		o = p.Open(c)
		w.ops[c] = o
	}
	res, err := o.Do(ctx, op, args)
	if l, ok := profile.Lacks(err); ok && w.lacks == nil {
		w.lacks = l
	}
	return res, err
}

// call makes one operation on the current session and keeps its answer.
func (w *World) call(op string, args any) (target.ToolResult, error) {
	c, err := w.conn()
	if err != nil {
		return target.ToolResult{}, err
	}
	ctx, cancel := context.WithTimeout(w.ctx, w.timeout())
	defer cancel()
	start := time.Now()
	res, err := w.do(ctx, c, op, args)
	w.elapsed = time.Since(start)
	if err != nil {
		return res, fmt.Errorf("%s: %w", op, err)
	}
	w.last, w.lastOp = res, op
	if op == "thought" {
		w.noteAck(args, res)
	}
	return res, nil
}

// mustSucceed makes a call that must not fail.
func (w *World) mustSucceed(op string, args any) (target.ToolResult, error) {
	res, err := w.call(op, args)
	if err != nil {
		return res, err
	}
	if res.IsError {
		return res, fmt.Errorf("%s failed: %s", op, clipText(res.Text()))
	}
	return res, nil
}

// answer decodes the last answer's JSON.
func (w *World) answer() (map[string]any, error) { return w.last.JSON() }

// expand replaces {{nonce}} and bound {{names}} in s.
func (w *World) expand(s string) string {
	return string(fixtures.Expand(json.RawMessage(s), w.env.Nonce, w.vars))
}

// args parses a docstring of JSON args after expansion, keeping key order.
func (w *World) args(doc string) (json.RawMessage, error) {
	raw := json.RawMessage(w.expand(doc))
	if !json.Valid(raw) {
		return nil, fmt.Errorf("the step's JSON is not valid: %s", doc)
	}
	return raw, nil
}

// sid is the reasoning session the scenario works on.
func (w *World) sid() (string, error) {
	if s := w.vars["sid"]; s != "" {
		return s, nil
	}
	return "", errors.New("no reasoning session yet: record a thought first")
}

// text is a thought text carrying the run's nonce.
func (w *World) text(s string) string { return s + " [" + w.env.Nonce + "]" }

// readExport returns the export written at path: the file when it is
// readable here. A file that can not be read is an error when the harness
// knows the server's export directory (the server's files are on this
// machine); otherwise, and when there is no path, the session's linked
// export is fetched through the session operation.
func (w *World) readExport(path, sid string) ([]byte, error) {
	if path != "" {
		data, err := os.ReadFile(path)
		if err == nil {
			w.rec.Notef("read export from %s", path)
			return data, nil
		}
		if w.env.Target.Info().ExportDir != "" {
			return nil, fmt.Errorf("the export file %s that exportPath names can not be read: %v", path, err)
		}
		w.rec.Notef("the export file %s is not readable here (%v) and the server's export directory is unknown: exporting the session through the session operation instead", path, err)
	}
	res, err := w.call("session", map[string]any{"operation": "export", "sessionId": sid, "format": "json"})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("session export failed: %s", clipText(res.Text()))
	}
	m, err := res.JSON()
	if err != nil {
		return nil, err
	}
	content, ok := m["content"].(string)
	if !ok {
		return nil, fmt.Errorf("session export answer has no content string: %s", clipText(res.Text()))
	}
	return []byte(content), nil
}

func clipText(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

// list splits "1, 2, 3" into trimmed items (empty for "" or "none").
func list(s string) []string {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "[]"))
	if s == "" || s == "none" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(p))
	}
	return out
}
