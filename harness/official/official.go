// Package official runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, run with Node 22 from the .tools
// directory the Makefile fills) against a target, once per MCP revision
// (`server --requirements <revision>`: one CLI process runs every scenario
// the revision requires, and those it reports without scoring), and judges
// every server scenario: passed, failed, or not applicable when the target
// does not declare the capability or offer the fixture (tool, prompt,
// resource) the scenario needs (see [Requirements]); a check that alone
// needs a missing fixture is left out of its scenario's verdict. The suite
// speaks only Streamable HTTP to a server, so over stdio every scenario is
// not applicable.
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
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/internal/procgroup"
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
	// Revision is the MCP revision it was judged at; Scored and Category
	// are as the suite lists it (Scenario).
	Revision string `json:"revision,omitempty"`
	Scored   bool   `json:"scored"`
	Category string `json:"category,omitempty"`
	// Pending: the suite keeps the scenario out of its default suite.
	Pending bool `json:"pending,omitempty"`
	// Status is Passed, Failed or NotApplicable.
	Status string `json:"status"`
	// Reason says why the scenario failed or is not applicable.
	Reason string `json:"reason,omitempty"`
	// Successes, Failures and Warnings count the suite's checks by status.
	Successes int     `json:"successes"`
	Failures  int     `json:"failures"`
	Warnings  int     `json:"warnings"`
	Checks    []Check `json:"checks,omitempty"`
	// ChecksNotApplicable are the checks left out of the verdict: each
	// needs a fixture the target does not offer, with the reason.
	ChecksNotApplicable []string `json:"checksNotApplicable,omitempty"`
	ExitCode            int      `json:"exitCode"`
	DurationMS          float64  `json:"durationMs"`
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
	// Scenarios to judge, as the suite lists them ([Tools.List]), each
	// with its revision.
	Scenarios []Scenario
	// Each runs one CLI process per scenario (`--scenario S --spec-version
	// <revision>`) instead of one per revision (`--requirements`): for a
	// chosen few.
	Each bool
	// Timeout bounds each CLI process (DefaultTimeout when 0; a run of a
	// whole revision gets it once per scenario, up to ten minutes).
	Timeout time.Duration
	// WorkDir receives the suite's checks.json files, a directory per
	// revision (a temporary directory, removed afterwards, when "").
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
		s.HeaderTools = headerTools(ctx, c)
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

// headerTools returns the tools whose input schema marks a property with
// x-mcp-header (their values travel in Mcp-Param-* headers too).
func headerTools(ctx context.Context, c *target.Conn) []string {
	var names []string
	_ = eachPage(ctx, c, "tools/list", func(page map[string]json.RawMessage) error {
		var tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(page["tools"], &tools); err != nil {
			return err
		}
		for _, t := range tools {
			if bytes.Contains(t.InputSchema, []byte(`"x-mcp-header"`)) {
				names = append(names, t.Name)
			}
		}
		return nil
	})
	sort.Strings(names)
	return names
}

// listAll pages through a list method and returns the key of every item.
func listAll(ctx context.Context, c *target.Conn, method, field, key string) ([]string, error) {
	var names []string
	err := eachPage(ctx, c, method, func(page map[string]json.RawMessage) error {
		var items []map[string]any
		if err := json.Unmarshal(page[field], &items); err != nil && len(page[field]) > 0 {
			return err
		}
		for _, it := range items {
			if v, ok := it[key].(string); ok {
				names = append(names, v)
			}
		}
		return nil
	})
	sort.Strings(names)
	return names, err
}

// eachPage calls f with every page of a list method's results, following
// nextCursor (at most 100 pages).
func eachPage(ctx context.Context, c *target.Conn, method string, f func(page map[string]json.RawMessage) error) error {
	cursor := ""
	for range 100 {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := c.Request(ctx, method, params)
		if err != nil {
			return err
		}
		var page map[string]json.RawMessage
		if err := json.Unmarshal(raw, &page); err != nil {
			return err
		}
		if err := f(page); err != nil {
			return err
		}
		cursor = ""
		if next, ok := page["nextCursor"]; ok {
			_ = json.Unmarshal(next, &cursor)
		}
		if cursor == "" {
			return nil
		}
	}
	return nil
}

// Run judges every scenario of o.Scenarios: the not applicable ones
// without looking at what the suite said of them, the others by the
// checks.json the suite wrote for them. A scenario passes when it reports
// no failed check among those that apply (warnings are counted, not
// failed) and has at least one; it fails on a failed check, a missing
// checks.json or the timeout.
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
	var revisions []string
	byRevision := map[string][]Scenario{}
	for _, sc := range o.Scenarios {
		if _, seen := byRevision[sc.Revision]; !seen {
			revisions = append(revisions, sc.Revision)
		}
		byRevision[sc.Revision] = append(byRevision[sc.Revision], sc)
	}
	var results []Result
	for _, rev := range revisions {
		if err := ctx.Err(); err != nil {
			return results, err
		}
		rs := judgeRevision(ctx, o, filepath.Join(work, revisionDir(rev)), rev, byRevision[rev])
		for _, r := range rs {
			if o.Progress != nil {
				o.Progress(r)
			}
		}
		results = append(results, rs...)
	}
	return results, nil
}

func revisionDir(rev string) string {
	if rev == "" {
		return "latest"
	}
	return rev
}

// judgeRevision judges the scenarios of one revision.
func judgeRevision(ctx context.Context, o Options, dir, rev string, scs []Scenario) []Result {
	results := make([]Result, len(scs))
	var run []int
	for i, sc := range scs {
		req, known := Requirements[sc.Name]
		r := Result{Scenario: sc.Name, SpecVersions: sc.SpecVersions, Revision: rev, Scored: sc.Scored, Category: sc.Category, Pending: req.Pending || sc.Category == "pending"}
		switch why := req.Unmet(o.Surface); {
		case why != "":
			r.Status, r.Reason = NotApplicable, why
		case o.URL == "":
			r.Status, r.Reason = NotApplicable, "the target has no HTTP endpoint"
		default:
			run = append(run, i)
			if !known {
				r.Reason = "not in tbbench's requirement map (written for suite " + SuiteVersion + "): run as applicable"
			}
		}
		results[i] = r
	}
	if len(run) == 0 {
		return results
	}
	if o.Each {
		for _, i := range run {
			sdir := filepath.Join(dir, scs[i].Name)
			args := []string{"server", "--url", o.URL, "--scenario", scs[i].Name, "-o", sdir}
			if rev != "" {
				args = append(args, "--spec-version", rev)
			}
			ex := execCLI(ctx, o, args, o.Timeout)
			results[i] = judge(results[i], scenarioDirs(sdir), ex, o.Surface)
		}
		return results
	}
	args := []string{"server", "--url", o.URL, "-o", dir}
	if rev != "" {
		args = append(args, "--requirements", rev)
	}
	ex := execCLI(ctx, o, args, min(o.Timeout*time.Duration(len(scs)), 10*time.Minute))
	dirs := scenarioDirs(dir)
	// The run's time is shared out evenly: the suite does not time its
	// scenarios.
	ex.duration /= time.Duration(len(run))
	for _, i := range run {
		results[i] = judge(results[i], dirs, ex, o.Surface)
	}
	return results
}

// execution is how one CLI process ended.
type execution struct {
	exitCode int
	duration time.Duration
	output   string
	err      error
	timedOut bool
	stopped  bool
}

// execCLI runs the suite's CLI with args within timeout.
func execCLI(ctx context.Context, o Options, args []string, timeout time.Duration) execution {
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(sctx, o.Tools.Node, append([]string{o.Tools.CLI}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// The CLI and anything it starts end together at the timeout.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { procgroup.Signal(cmd.Process, syscall.SIGKILL); return nil }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	ex := execution{duration: time.Since(start), output: out.String(), err: err,
		timedOut: sctx.Err() == context.DeadlineExceeded, stopped: ctx.Err() != nil}
	if cmd.ProcessState != nil {
		ex.exitCode = cmd.ProcessState.ExitCode()
	}
	return ex
}

// scenarioDirNames matches the directories the CLI writes a scenario's
// checks.json in: server-<scenario>-<timestamp>.
var scenarioDirName = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[0-9-]+Z$`)

// scenarioDirs maps each scenario to the newest directory the CLI wrote
// for it under dir.
func scenarioDirs(dir string) map[string]string {
	out := map[string]string{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if m := scenarioDirName.FindStringSubmatch(e.Name()); m != nil && e.IsDir() {
			if prev, ok := out[m[1]]; !ok || e.Name() > filepath.Base(prev) {
				out[m[1]] = filepath.Join(dir, e.Name())
			}
		}
	}
	return out
}

// judge gives r its verdict from the checks the suite wrote for it.
func judge(r Result, dirs map[string]string, ex execution, s Surface) Result {
	r.DurationMS = float64(ex.duration.Microseconds()) / 1000
	r.ExitCode = ex.exitCode
	var checks []Check
	cerr := errors.New("no checks.json written")
	if d, ok := dirs[r.Scenario]; ok {
		checks, cerr = readChecks(d)
	}
	r.Checks = checks
	req := Requirements[r.Scenario]
	var failed []string
	judged := 0
	for _, c := range checks {
		if why := req.Checks[c.ID].Unmet(s); why != "" {
			r.ChecksNotApplicable = append(r.ChecksNotApplicable, c.ID+": "+why)
			continue
		}
		switch c.Status {
		case "SUCCESS":
			r.Successes++
			judged++
		case "FAILURE":
			r.Failures++
			judged++
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
	note := r.Reason
	switch {
	case ex.timedOut:
		r.Status, r.Reason = Failed, "the suite timed out"
	case ex.stopped:
		r.Status, r.Reason = Failed, "interrupted"
	case r.Failures > 0:
		r.Status, r.Reason = Failed, strings.Join(failed, "; ")
	case cerr != nil:
		r.Status, r.Reason = Failed, fmt.Sprintf("no result from the suite (exit %d): %v", ex.exitCode, cerr)
	case judged == 0 && len(r.ChecksNotApplicable) > 0:
		r.Status, r.Reason = NotApplicable, "every check needs a fixture the target does not offer: "+strings.Join(r.ChecksNotApplicable, "; ")
	default:
		r.Status = Passed
		if r.Warnings > 0 {
			r.Reason = fmt.Sprintf("%d warnings", r.Warnings)
		}
		if n := len(r.ChecksNotApplicable); n > 0 {
			r.Reason = strings.TrimPrefix(r.Reason+fmt.Sprintf("; %d checks not applicable (fixture not offered)", n), "; ")
		}
	}
	if note != "" && r.Status != NotApplicable {
		r.Reason = strings.TrimPrefix(r.Reason+"; "+note, "; ")
	}
	if r.Status == Failed {
		r.Output = lastLines(ex.output, 40)
	}
	return r
}

// readChecks reads the checks.json in dir.
func readChecks(dir string) ([]Check, error) {
	path := filepath.Join(dir, "checks.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var checks []Check
	if err := json.Unmarshal(b, &checks); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
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
