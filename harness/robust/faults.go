package robust

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target"
)

// A fault is something going wrong around the server — its client, its
// disk — that it must survive without losing an acknowledged thought.
type fault struct {
	name, rule string
	// notApplicable says why the fault cannot be made on tg ("" when it
	// can).
	notApplicable func(tg target.Target) string
	run           func(ctx context.Context, r *runner) (bool, string)
}

var faults = []fault{
	{name: "fault/sampling-refused", rule: "a client that refuses sampling neither fails nor delays a thought that asks for a critique (D10)",
		run: func(ctx context.Context, r *runner) (bool, string) {
			return r.critique(ctx, target.RefuseSampling)
		}},
	{name: "fault/sampling-never-answered", rule: "a client that never answers sampling delays a thought by the critique timeout at most (D10)",
		run: func(ctx context.Context, r *runner) (bool, string) {
			return r.critique(ctx, target.StallSampling)
		}},
	{name: "fault/export-dir-not-writable", rule: "when the export cannot be written the server says so, keeps every acknowledged thought and keeps answering",
		notApplicable: func(tg target.Target) string {
			if exportDir(tg) == "" {
				return "the export directory is not known (set THOUGHTBOX_DATA_DIR or THOUGHTBOX_EXPORT_DIR with --env, or --export-dir)"
			}
			return ""
		},
		run: func(ctx context.Context, r *runner) (bool, string) { return r.unwritableExports(ctx) }},
}

// exportDir is where the target writes exports, "" when not known (D9).
func exportDir(tg target.Target) string {
	info := tg.Info()
	switch {
	case info.ExportDir != "":
		return info.ExportDir
	case info.DataDir != "":
		return filepath.Join(info.DataDir, "exports")
	}
	return ""
}

// runFaults makes each fault and judges how the target came through.
func (r *runner) runFaults(ctx context.Context) []Result {
	var out []Result
	for _, f := range faults {
		res := Result{Name: f.name, Layer: LayerFault, Rule: f.rule, Era: r.era}
		switch {
		case f.notApplicable != nil && f.notApplicable(r.tg) != "":
			res.Outcome, res.NotApplicable, res.Detail = NotThisLayer, true, f.notApplicable(r.tg)
		case r.stopped != "":
			res.Outcome, res.Detail = NotRun, "not made: "+r.stopped
		default:
			r.rec.Notef("robustness fault %s (%s)", f.name, f.rule)
			res.Passed, res.Detail = f.run(ctx, r)
			res.Outcome = Survived
			if !res.Passed {
				res.Outcome = Damaged
			}
		}
		out = append(out, res)
	}
	return out
}

// call is one gateway call whose answer must not be an error.
func call(ctx context.Context, c *target.Conn, op, args string) (target.ToolResult, error) {
	var a any
	if args != "" {
		a = json.RawMessage(args)
	}
	res, err := c.Gateway(ctx, op, a)
	if err == nil && res.IsError {
		err = fmt.Errorf("%s answered an error: %s", op, firstLine(res.Text()))
	}
	return res, err
}

// readBack returns how many main-chain thoughts read_thoughts returns.
func readBack(ctx context.Context, c *target.Conn) (int, error) {
	res, err := call(ctx, c, "read_thoughts", `{"range":[1,100]}`)
	if err != nil {
		return 0, err
	}
	var v struct{ Thoughts []json.RawMessage }
	if err := json.Unmarshal([]byte(res.Text()), &v); err != nil {
		return 0, fmt.Errorf("read_thoughts: %w", err)
	}
	return len(v.Thoughts), nil
}

// critique records a thought asking for a critique from a client that
// answers sampling as mode says: the thought must be acknowledged, within
// the critique timeout and a margin, and read back.
//
// In the 2026 era the server holds no request open for the client: the
// thought is answered at once, with input_required asking for the
// critique (or a complete result), and a client that refuses or never
// answers sampling simply never retries it. The first answer must come
// within the same bound and the thought read back all the same.
func (r *runner) critique(ctx context.Context, mode target.Sampling) (bool, string) {
	c, err := target.Connect(ctx, r.tg, r.rec, target.ConnOptions{Sampling: mode, Era: r.era})
	if err != nil {
		return false, "connecting: " + err.Error()
	}
	defer c.Close()
	for _, s := range [][2]string{{"start_new", `{"newWork":{"project":"robustness","task":"sampling"}}`}, {"cipher", ""}} {
		if _, err := call(ctx, c, s[0], s[1]); err != nil {
			return false, err.Error()
		}
	}
	limit := r.o.CritiqueTimeout + 3*time.Second
	cctx, cancel := context.WithTimeout(ctx, limit+5*time.Second)
	defer cancel()
	const args = `{"thought":"A step to critique","nextThoughtNeeded":true,"critique":true}`
	if r.era.Modern() {
		return r.critiqueNeverRetried(cctx, c, args, limit)
	}
	start := time.Now()
	_, err = call(cctx, c, "thought", args)
	took := time.Since(start)
	if err != nil {
		return false, "the thought asking for a critique failed: " + err.Error()
	}
	if took > limit {
		return false, fmt.Sprintf("the thought took %.1f s; the critique timeout is %s", took.Seconds(), r.o.CritiqueTimeout)
	}
	if n, err := readBack(ctx, c); err != nil || n != 1 {
		return false, fmt.Sprintf("reading the thought back: %d thoughts, %v", n, err)
	}
	return true, fmt.Sprintf("acknowledged in %.2f s and read back", took.Seconds())
}

// critiqueNeverRetried sends a 2026-era thought asking for a critique once
// and, like a client that refuses or never answers sampling, does not
// retry it: the answer must come within limit and the thought read back.
func (r *runner) critiqueNeverRetried(ctx context.Context, c *target.Conn, args string, limit time.Duration) (bool, string) {
	start := time.Now()
	raw, err := c.Request(ctx, "tools/call", map[string]any{"name": gatewayTool,
		"arguments": inContext(gateway(`"thought"`, args), c.ContextID())})
	took := time.Since(start)
	if err != nil {
		return false, "the thought asking for a critique failed: " + err.Error()
	}
	var res struct {
		ResultType string `json:"resultType"`
		IsError    bool   `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.IsError {
		tr, _ := target.ParseToolResult(raw)
		return false, fmt.Sprintf("the thought asking for a critique was not acknowledged: %v %s", err, firstLine(tr.Text()))
	}
	if took > limit {
		return false, fmt.Sprintf("the thought took %.1f s; the critique timeout is %s", took.Seconds(), r.o.CritiqueTimeout)
	}
	if n, err := readBack(ctx, c); err != nil || n != 1 {
		return false, fmt.Sprintf("reading the thought back after the client gave up: %d thoughts, %v", n, err)
	}
	return true, fmt.Sprintf("answered (resultType %s) in %.2f s, never retried, and read back", res.ResultType, took.Seconds())
}

// unwritableExports puts a file where the export directory should be, so
// that no export can be written even by root, closes a session (its
// auto-export fails) and asks for an explicit export: the closing thought
// must be kept if it was acknowledged, the explicit export must be a clear
// error, and the server must go on answering. The directory is put back.
func (r *runner) unwritableExports(ctx context.Context) (ok bool, detail string) {
	dir := exportDir(r.tg)
	saved := dir + ".robustness-saved"
	if err := os.Rename(dir, saved); err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, "moving the export directory aside: " + err.Error()
	}
	if err := os.WriteFile(dir, []byte("not a directory\n"), 0o600); err != nil {
		return false, "putting a file in its place: " + err.Error()
	}
	defer func() {
		if err := os.Remove(dir); err != nil {
			ok, detail = false, detail+"; removing the file: "+err.Error()
		}
		if err := os.Rename(saved, dir); err != nil && !errors.Is(err, os.ErrNotExist) {
			ok, detail = false, detail+"; putting the export directory back: "+err.Error()
		}
	}()
	c, err := target.Connect(ctx, r.tg, r.rec, target.ConnOptions{Era: r.era})
	if err != nil {
		return false, "connecting: " + err.Error()
	}
	defer c.Close()
	steps := [][2]string{{"start_new", `{"newWork":{"project":"robustness","task":"exports"}}`}, {"cipher", ""},
		{"thought", `{"thought":"Kept whatever the disk does","nextThoughtNeeded":true}`}}
	for _, s := range steps {
		if _, err := call(ctx, c, s[0], s[1]); err != nil {
			return false, err.Error()
		}
	}
	closing, err := c.Gateway(ctx, "thought", json.RawMessage(`{"thought":"The closing thought","nextThoughtNeeded":false}`))
	if err != nil {
		return false, "the closing thought got no answer: " + err.Error()
	}
	want := 1
	if !closing.IsError {
		want = 2
	}
	if n, err := readBack(ctx, c); err != nil || n != want {
		return false, fmt.Sprintf("after the closing thought (isError %v) %d thoughts read back, want %d (%v)", closing.IsError, n, want, err)
	}
	info, err := c.Gateway(ctx, "get_state", nil)
	if err != nil || info.IsError {
		return false, fmt.Sprintf("the server stopped answering after a failed export: %v", err)
	}
	return true, fmt.Sprintf("the closing thought was %s; every acknowledged thought reads back", map[bool]string{true: "refused", false: "acknowledged"}[closing.IsError])
}
