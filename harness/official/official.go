// Package official runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, run with Node 22 from the .tools
// directory the Makefile fills) against a target, one scenario per CLI
// process, and judges every server scenario the suite lists: passed,
// failed, or not applicable when the target does not declare the
// capability or offer the fixture (tool, prompt, resource) the scenario
// needs (see [Requirements]). The suite speaks only Streamable HTTP to a
// server, so over stdio every scenario is not applicable.
package official

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
)

// Verdicts of a scenario.
const (
	Passed        = "passed"
	Failed        = "failed"
	NotApplicable = "not-applicable"
)

// DefaultTimeout bounds one scenario's CLI process.
const DefaultTimeout = 60 * time.Second

// Check is one check of a scenario as the suite reports it in checks.json.
type Check struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Status is SUCCESS, FAILURE, WARNING or INFO.
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage,omitempty"`
}

// Result is the verdict on one scenario.
type Result struct {
	Scenario     string   `json:"scenario"`
	SpecVersions []string `json:"specVersions,omitempty"`
	// Pending: the suite keeps the scenario out of its default suite.
	Pending bool `json:"pending,omitempty"`
	// Status is Passed, Failed or NotApplicable.
	Status string `json:"status"`
	// Reason says why the scenario failed or is not applicable.
	Reason string `json:"reason,omitempty"`
	// Successes, Failures and Warnings count the suite's checks by status.
	Successes  int     `json:"successes"`
	Failures   int     `json:"failures"`
	Warnings   int     `json:"warnings"`
	Checks     []Check `json:"checks,omitempty"`
	ExitCode   int     `json:"exitCode"`
	DurationMS float64 `json:"durationMs"`
	// Output is the end of the CLI's output when the scenario failed.
	Output string `json:"output,omitempty"`
}

// Options configure a run of the suite.
type Options struct {
	Tools Tools
	// URL is the target's Streamable HTTP endpoint ("" over stdio).
	URL string
	// Surface is what the target declares and offers ([Discover]).
	Surface Surface
	// Scenarios to judge, as the suite lists them ([Tools.List]).
	Scenarios []Scenario
	// Timeout bounds each scenario (DefaultTimeout when 0).
	Timeout time.Duration
	// WorkDir receives the suite's checks.json files, one directory per
	// scenario (a temporary directory, removed afterwards, when "").
	WorkDir string
	// Progress, when set, is called after each scenario.
	Progress func(Result)
}

// Discover connects to the target once and reads what it declares and
// offers: the capabilities of its initialize result, its tools, and its
// prompts and resources when it declares them. The session is recorded in
// rec. Over stdio too, for the report: the suite cannot reach the target.
func Discover(ctx context.Context, tg target.Target, rec *transcript.Recorder) (Surface, ServerInfo, error) {
	s := Surface{Transport: target.HTTP}
	if tg.HTTPBase() == "" {
		s.Transport = target.Stdio
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := target.Connect(ctx, tg, rec, target.ConnOptions{Direct: true})
	if err != nil {
		return s, ServerInfo{}, fmt.Errorf("%w: %v", target.ErrUnreachable, err)
	}
	defer c.Close()
	var info ServerInfo
	if init := c.Initialize(); init != nil {
		info = ServerInfo{Name: init.ServerInfo.Name, Version: init.ServerInfo.Version, ProtocolVersion: init.ProtocolVersion}
		b, err := json.Marshal(init.Capabilities)
		if err == nil {
			err = json.Unmarshal(b, &s.Capabilities)
		}
		if err != nil {
			return s, info, fmt.Errorf("reading the capabilities: %w", err)
		}
	}
	var errs []error
	list := func(method, field, key string) []string {
		names, err := listAll(ctx, c, method, field, key)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", method, err))
		}
		return names
	}
	if s.Declares("tools") {
		s.Tools = list("tools/list", "tools", "name")
	}
	if s.Declares("prompts") {
		s.Prompts = list("prompts/list", "prompts", "name")
	}
	if s.Declares("resources") {
		s.Resources = list("resources/list", "resources", "uri")
		// A server without templates may not know the method: no templates.
		s.ResourceTemplates, _ = listAll(ctx, c, "resources/templates/list", "resourceTemplates", "uriTemplate")
	}
	return s, info, errors.Join(errs...)
}

// ServerInfo is the target's initialize serverInfo and protocol version.
type ServerInfo struct {
	Name            string `json:"name"`
	Version         string `json:"version"`
	ProtocolVersion string `json:"protocolVersion"`
}

// listAll pages through a list method and returns the key of every item.
func listAll(ctx context.Context, c *target.Conn, method, field, key string) ([]string, error) {
	var names []string
	cursor := ""
	for page := 0; page < 100; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := c.Request(ctx, method, params)
		if err != nil {
			return names, err
		}
		var res map[string]json.RawMessage
		if err := json.Unmarshal(raw, &res); err != nil {
			return names, err
		}
		var items []map[string]any
		if err := json.Unmarshal(res[field], &items); err != nil && len(res[field]) > 0 {
			return names, err
		}
		for _, it := range items {
			if v, ok := it[key].(string); ok {
				names = append(names, v)
			}
		}
		cursor = ""
		if next, ok := res["nextCursor"]; ok {
			_ = json.Unmarshal(next, &cursor)
		}
		if cursor == "" {
			break
		}
	}
	sort.Strings(names)
	return names, nil
}

// Run judges every scenario of o.Scenarios in turn: the not applicable
// ones without running them, the others by running the suite's CLI for
// that scenario alone against o.URL and reading the checks.json it writes.
// A scenario passes when the CLI ends with status 0 and reports no failed
// check (warnings are counted, not failed); it fails on a failed check, a
// non-zero exit, a missing checks.json or the timeout.
func Run(ctx context.Context, o Options) ([]Result, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	work := o.WorkDir
	if work == "" {
		tmp, err := os.MkdirTemp("", "tbbench-official-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	}
	var results []Result
	for _, sc := range o.Scenarios {
		if err := ctx.Err(); err != nil {
			return results, err
		}
		req, known := Requirements[sc.Name]
		r := Result{Scenario: sc.Name, SpecVersions: sc.SpecVersions, Pending: req.Pending}
		if why := req.Unmet(o.Surface); why != "" {
			r.Status, r.Reason = NotApplicable, why
		} else if o.URL == "" {
			r.Status, r.Reason = NotApplicable, "the target has no HTTP endpoint"
		} else {
			r = runOne(ctx, o, work, r)
			if !known {
				r.Reason = strings.TrimPrefix(r.Reason+"; ", "; ") + "not in tbbench's requirement map (written for suite " + SuiteVersion + "): run as applicable"
			}
		}
		results = append(results, r)
		if o.Progress != nil {
			o.Progress(r)
		}
	}
	return results, nil
}

// runOne runs the CLI for one scenario.
func runOne(ctx context.Context, o Options, work string, r Result) Result {
	dir := filepath.Join(work, r.Scenario)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.Status, r.Reason = Failed, err.Error()
		return r
	}
	sctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cmd := exec.CommandContext(sctx, o.Tools.Node, o.Tools.CLI, "server", "--url", o.URL, "--scenario", r.Scenario, "-o", dir)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// The CLI and anything it starts end together at the timeout.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	r.ExitCode = cmd.ProcessState.ExitCode()
	checks, cerr := readChecks(dir)
	r.Checks = checks
	var failed []string
	for _, c := range checks {
		switch c.Status {
		case "SUCCESS":
			r.Successes++
		case "FAILURE":
			r.Failures++
			msg := c.ID
			if c.ErrorMessage != "" {
				msg += ": " + c.ErrorMessage
			} else if c.Description != "" {
				msg += ": " + c.Description
			}
			failed = append(failed, msg)
		case "WARNING":
			r.Warnings++
		}
	}
	switch {
	case sctx.Err() == context.DeadlineExceeded:
		r.Status, r.Reason = Failed, fmt.Sprintf("timed out after %s", o.Timeout)
	case ctx.Err() != nil:
		r.Status, r.Reason = Failed, "interrupted"
	case r.Failures > 0:
		r.Status, r.Reason = Failed, strings.Join(failed, "; ")
	case cerr != nil:
		r.Status, r.Reason = Failed, fmt.Sprintf("no result from the suite (exit %d): %v", r.ExitCode, cerr)
	case err != nil:
		r.Status, r.Reason = Failed, fmt.Sprintf("the suite ended with %v and no failed check", err)
	default:
		r.Status = Passed
		if r.Warnings > 0 {
			r.Reason = fmt.Sprintf("%d warnings", r.Warnings)
		}
	}
	if r.Status == Failed {
		r.Output = lastLines(out.String(), 40)
	}
	return r
}

// readChecks reads the checks.json the CLI wrote under dir (in a
// directory of its own naming, server-<scenario>-<time>).
func readChecks(dir string) ([]Check, error) {
	matches, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	if len(matches) == 0 {
		return nil, errors.New("no checks.json written")
	}
	sort.Strings(matches)
	b, err := os.ReadFile(matches[len(matches)-1])
	if err != nil {
		return nil, err
	}
	var checks []Check
	if err := json.Unmarshal(b, &checks); err != nil {
		return nil, fmt.Errorf("%s: %w", matches[len(matches)-1], err)
	}
	return checks, nil
}

// Tally counts the results by verdict.
func Tally(rs []Result) (passed, failed, notApplicable int) {
	for _, r := range rs {
		switch r.Status {
		case Passed:
			passed++
		case Failed:
			failed++
		default:
			notApplicable++
		}
	}
	return
}
