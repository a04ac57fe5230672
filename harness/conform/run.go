package conform

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cucumber/godog"

	"github.com/thoughtbox-bench/tbbench/harness/profile"
	"github.com/thoughtbox-bench/tbbench/harness/steps"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/transcript"
	"github.com/thoughtbox-bench/tbbench/observability/sidecar"
)

// Options configure a conformance run.
type Options struct {
	Target target.Target
	// OutDir receives transcripts/, cucumber.json (godog's record of the
	// steps, where an absent quirk is a failed scenario) and junit.xml
	// (Report.JUnit, where it is not).
	OutDir string
	// Required are the levels the target must pass ("core", "intent").
	Required []string
	// Concurrency is how many scenarios run at once (default 4).
	Concurrency int
	// Tags is an extra godog tag expression, e.g. "@ledger".
	Tags string
	// Features are the feature files (default: the embedded ones).
	Features fs.FS
	// Progress, when set, is told about every finished scenario.
	Progress func(r ScenarioResult)
	// Nonce is the run's nonce (default: random).
	Nonce string
	// Profile is the target's family; nil detects it from tools/list.
	Profile profile.Profile
	// Era is the MCP wire era the scenarios speak (default 2025-11-25).
	// Against a target that does not speak it, Run returns an error
	// wrapping target.ErrEraNotSpoken.
	Era target.Era
	// StopWhen, when set, starts no scenario once one for which it returns
	// true has finished (those already running finish): for a caller that
	// only needs to know whether the target fails, or fails a given
	// scenario, such as a proof that the harness catches a fault. The
	// report then holds the scenarios that ran, and Report.NotRun counts
	// the others.
	StopWhen func(ScenarioResult) bool
}

// Proxied is a target behind the sidecar (sidecarfront.Front, or a
// decorator of it): Counts returns what the sidecar counted. A run through
// one compares those counts with its own, and any difference fails it.
type Proxied interface {
	target.Target
	Counts() sidecar.Counts
}

// Capability tags: scenarios that need something not every target has.
const (
	// HTTPOnlyTag marks scenarios that check HTTP itself; they are not
	// applicable to stdio targets.
	HTTPOnlyTag = "@http"
	// SharedStateTag marks scenarios that use two MCP sessions on one
	// server's storage; a stdio target starts a process per session, so
	// with memory storage they are not applicable.
	SharedStateTag = "@shared-state"
	// ProxyTag marks scenarios that compare answers given directly and
	// through the sidecar; with --direct there is no sidecar.
	ProxyTag = "@proxy"
	// RestartTag marks scenarios that stop the server and start it again on
	// its data (target.Restarter); they run alone. Not applicable to a URL,
	// or with memory storage, whose data does not outlive the process.
	RestartTag = "@restart"
	// KillTag marks scenarios that kill the server with SIGKILL; they run
	// alone. Only a server in child processes can be killed: not the
	// in-process embedded server, not a URL.
	KillTag = "@kill"
	// DataDirTag marks scenarios that read or change the server's files: the
	// data directory must be known (embedded, or --command with
	// THOUGHTBOX_DATA_DIR in --env) and the storage not memory.
	DataDirTag = "@data-dir"
	// SecondProcessTag marks scenarios that start another process of the
	// same server on the same data (target.Sibling): command and embedded
	// targets, not a URL, not memory storage.
	SecondProcessTag = "@second-process"
	// ExportDirTag marks scenarios that check where the server writes its
	// exports (D9) or read the files it writes: the export directory must be known (embedded, --command with
	// a data or export directory in --env, or --export-dir), so the files
	// are on this machine.
	ExportDirTag = "@export-dir"
	// ServerEnvTag marks scenarios that need a secret the harness placed in
	// the server's environment (target.CanaryEnv): servers the harness
	// starts (embedded, --command), not a URL.
	ServerEnvTag = "@server-env"
	// OwnServerTag marks scenarios that start a server of their own with
	// settings they choose (target.Configured: an environment variable
	// such as THOUGHTBOX_KNOWLEDGE_ENABLED, a fresh data directory),
	// restart it and read its files: command and embedded targets, not a
	// URL.
	OwnServerTag = "@own-server"
	// ObservatoryTag marks scenarios that watch the server's Observatory
	// (its WebSocket and HTTP API, D19): the harness must know where the
	// target runs one (target.Observed).
	ObservatoryTag = "@observatory-api"
)

// Era tags: scenarios that check what one MCP wire era has and the other
// has not. A scenario without one runs in both.
const (
	// Era2025Tag marks scenarios of the MCP session itself (Mcp-Session-Id,
	// DELETE, 404 for an ended session, server-initiated requests on a
	// held-open stream): 2025-11-25 only.
	Era2025Tag = "@era-2025"
	// Era2026Tag marks scenarios of the stateless era (contexts, multi
	// round-trip requests, server/discover, resultType, the header rules):
	// 2026-07-28 only.
	Era2026Tag = "@era-2026"
)

// Family tags: which families of servers a scenario is written for. A
// scenario without one is the gateway family's (thoughtbox_gateway, stage
// gating: the reference server and Thoughtbox 1.2.x); the others run it as
// not applicable.
const (
	// EveryFamilyTag marks scenarios written in the operations every
	// family has (record a thought, branch, revise): they run against
	// every profile, and a step needing what a family lacks makes them not
	// applicable there, naming it.
	EveryFamilyTag = "@every-family"
)

// familyTag is the tag of a family's own scenarios: "@" and the profile's
// name ("@sequential-thinking").
func familyTag(p profile.Profile) string { return "@" + p.Name() }

// capabilityTags are the tags that say what a scenario needs of the target;
// they are neither a level nor the suite.
var capabilityTags = func() map[string]bool {
	m := map[string]bool{HTTPOnlyTag: true, SharedStateTag: true, ProxyTag: true, RestartTag: true, KillTag: true,
		DataDirTag: true, SecondProcessTag: true, ExportDirTag: true, ServerEnvTag: true, OwnServerTag: true, ObservatoryTag: true,
		Era2025Tag: true, Era2026Tag: true,
		EveryFamilyTag: true}
	for _, n := range profile.Names() {
		m["@"+n] = true
	}
	return m
}()

// notForFamily says why a scenario with these tags is not written for the
// family of p ("" when it is).
func notForFamily(tags []string, p profile.Profile) string {
	var families []string
	for _, t := range tags {
		if t == EveryFamilyTag {
			return ""
		}
		for _, n := range profile.Names() {
			if t == "@"+n {
				families = append(families, n)
			}
		}
	}
	if len(families) == 0 {
		families = []string{profile.Gateway.Name()}
	}
	if slices.Contains(families, p.Name()) {
		return ""
	}
	return fmt.Sprintf("written for the %s family; the target is judged as %s (its scenarios are tagged %s or %s)",
		strings.Join(families, " and "), p.Name(), familyTag(p), EveryFamilyTag)
}

// exclusive reports whether a scenario with these tags must run alone: it
// restarts or kills the server every other scenario talks to.
func exclusive(tags []string) bool {
	for _, t := range tags {
		if t == RestartTag || t == KillTag {
			return true
		}
	}
	return false
}

// notApplicable says why a scenario with these tags can not run against
// the target ("" when it can).
func notApplicable(tags []string, tg target.Target, stdio, proxied bool, era target.Era) string {
	info := tg.Info()
	volatile := info.Storage == "memory"
	for _, t := range tags {
		_, restarts := target.As[target.Restarter](tg)
		_, siblings := target.As[target.Sibling](tg)
		switch {
		case t == Era2025Tag && era.Modern():
			return "checks the MCP session of " + string(target.Era2025) + " (its id, DELETE, server-initiated requests), which " + string(era) + " does not have"
		case t == Era2026Tag && !era.Modern():
			return "checks what " + string(target.Era2026) + " has (contexts, multi round-trip requests, server/discover, its headers and result fields); the run speaks " + string(target.Era2025)
		case t == ProxyTag && !proxied:
			return "compares the target with and without the sidecar; the run talks to the target directly"
		case t == HTTPOnlyTag && stdio:
			return "checks HTTP itself; the target speaks stdio"
		case t == SharedStateTag && stdio && volatile:
			return "needs two MCP sessions on one server; over stdio each is its own process, and memory storage is not shared"
		case (t == RestartTag || t == KillTag || t == DataDirTag || t == SecondProcessTag) && volatile:
			return "needs data that outlives the server process; the target uses memory storage"
		case t == RestartTag && !restarts:
			return "restarts the server; the harness can not restart this target (a URL)"
		case t == KillTag && !target.CanKill(tg):
			return "kills the server with SIGKILL; this target does not run in a child process of the harness (start it with --command, or the embedded server as a child)"
		case t == DataDirTag && info.Storage == "sqlite":
			return "reads or changes the files of the filesystem storage layout; the target uses SQLite storage"
		case t == DataDirTag && info.DataDir == "":
			return "reads or changes the server's files; the data directory is not known (set THOUGHTBOX_DATA_DIR with --env)"
		case t == ExportDirTag && info.ExportDir == "":
			return "reads the export files the server writes; its export directory is not known (give --export-dir, or THOUGHTBOX_DATA_DIR or THOUGHTBOX_EXPORT_DIR with --env)"
		case t == ServerEnvTag && info.Canary == "":
			return "needs a secret in the server's environment; the harness did not start this server (a URL), so it can not place one"
		case t == OwnServerTag && !configurable(tg):
			return "starts a server of its own with settings the scenario chooses; the harness does not start this target (a URL)"
		case t == ObservatoryTag && !target.HasObservatory(tg):
			return "watches the server's Observatory; the harness does not know where this target runs one (give --observatory-url, or {obsport} in --command or --env; the embedded server runs one unless --observatory=false)"
		case t == SecondProcessTag && !siblings:
			return "starts a second process of the server on the same data; the harness does not start this target"
		}
	}
	return ""
}

// configurable reports whether the harness can start another server like
// tg with settings of its choosing.
func configurable(tg target.Target) bool {
	_, ok := target.As[target.Configured](tg)
	return ok
}

// Run plays every scenario against the target and returns their results.
// The feature files are checked first (LoadFeatures): an error there wraps
// ErrFeatures or ErrSelection and nothing runs.
func Run(ctx context.Context, o Options) (Report, error) {
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.Features == nil {
		o.Features = defaultFeatures
	}
	sel, err := LoadFeatures(o.Features, o.Tags, o.Required)
	if err != nil {
		return Report{}, err
	}
	if o.Nonce == "" {
		o.Nonce = randomNonce()
	}
	info := o.Target.Info()
	rep := Report{RunID: filepath.Base(o.OutDir), StartedAt: time.Now().UTC(), Required: o.Required, Nonce: o.Nonce,
		Target: TargetInfo{Kind: info.Kind, Address: info.Address, Transport: info.Transport, Storage: info.Storage}}
	o.Era = o.Era.OrDefault()
	rep.Era = string(o.Era)
	// The sidecar in front of the target may have served runs before this
	// one (another era, a repeat): this run's counts are what it counted
	// from now on.
	var before sidecar.Counts
	var values *valueGate
	if front, ok := target.As[Proxied](o.Target); ok {
		before, values = front.Counts(), startValueGate(ctx, o.Target)
	}
	env := &steps.Env{Target: o.Target, Nonce: o.Nonce, Era: o.Era}
	prof, tools, err := handshake(ctx, o, &rep, env)
	if err != nil {
		return rep, err
	}
	env.Profile = prof
	var mu sync.Mutex
	seen := map[string]int{}
	transcriptName := func(feature, name string) string {
		mu.Lock()
		defer mu.Unlock()
		base := strings.TrimSuffix(filepath.Base(feature), ".feature") + "--" + slug(name)
		seen[base]++
		if seen[base] > 1 {
			base += fmt.Sprintf("-%d", seen[base])
		}
		return filepath.Join(o.OutDir, "transcripts", base+".jsonl")
	}
	stdio := o.Target.HTTPBase() == ""
	front, proxied := target.As[Proxied](o.Target)
	// Scenarios that restart or kill the server hold gate for writing, the
	// others for reading, so a restart never cuts another scenario short.
	var gate sync.RWMutex

	// stop is set when StopWhen holds for a scenario: no scenario starts
	// after that.
	var stop atomic.Bool

	// godog writes its cucumber report in many small pieces: unbuffered,
	// a write call each, a sixth of a suite run's CPU.
	cucumber, err := os.Create(filepath.Join(o.OutDir, "cucumber.json"))
	if err != nil {
		return rep, err
	}
	defer cucumber.Close()
	report := bufio.NewWriterSize(cucumber, 1<<16)

	suite := godog.TestSuite{
		Name: "tbbench",
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			w := steps.NewWorld(ctx, env, nil, "")
			steps.Register(sc, w)
			var res ScenarioResult
			var rec *transcript.Recorder
			var start time.Time
			var release func()
			var notRun bool
			skipped := watchSkips(sc)
			sc.Before(func(c context.Context, s *godog.Scenario) (context.Context, error) {
				if stop.Load() {
					notRun = true
					return c, godog.ErrSkip
				}
				start = time.Now()
				res = ScenarioResult{Name: s.Name, Feature: filepath.Base(s.Uri)}
				var tags []string
				for _, t := range s.Tags {
					tags = append(tags, t.Name)
				}
				res.Level, res.Suite = classify(tags)
				skipped.reset()
				why := notForFamily(tags, prof)
				if why == "" {
					why = notApplicable(tags, o.Target, stdio, proxied, o.Era)
				}
				if why != "" {
					res.Status, res.Failure = NotApplicable, why
				}
				var err error
				if rec, err = transcript.Create(transcriptName(res.Feature, s.Name)); err != nil {
					return c, err
				}
				res.Transcript = rec.Path()
				rec.Notef("scenario %q (%s, @%s @%s), run nonce %s", s.Name, res.Feature, res.Level, res.Suite, o.Nonce)
				w.Reset(rec, s.Name)
				if res.Status == NotApplicable {
					return c, godog.ErrSkip
				}
				if exclusive(tags) {
					gate.Lock()
					release = gate.Unlock
				} else {
					gate.RLock()
					release = gate.RUnlock
				}
				start = time.Now() // the wait for the gate is not the scenario's time
				return c, nil
			})
			sc.After(func(c context.Context, s *godog.Scenario, err error) (context.Context, error) {
				if notRun {
					mu.Lock()
					rep.NotRun++
					mu.Unlock()
					return c, nil
				}
				quirks, cerr := w.Close()
				if release != nil {
					release()
					release = nil
				}
				res.DurationMS = float64(time.Since(start).Microseconds()) / 1000
				res.Quirks = quirks
				lacks := w.Lacks()
				switch {
				case res.Status == NotApplicable:
				case lacks != nil:
					// Whatever the steps before it found, the scenario
					// could not be played through on this family.
					res.Status, res.Failure = NotApplicable, "needs what the target's family lacks: "+lacks.Error()
				case skipped.err != nil:
					res.Status, res.Failure = skipped.verdict()
				case err != nil:
					res.Status, res.Failure = Failed, err.Error()
				case cerr != nil:
					res.Status, res.Failure = Failed, cerr.Error()
				default:
					res.Status = Passed
				}
				if rec != nil {
					rec.Notef("scenario %s", res.Status)
					res.Warnings = rec.Warnings()
					env.AddCounts(rec.Counts())
					if werr := rec.Close(); werr != nil && res.Status == Passed {
						res.Status, res.Failure = Failed, "the transcript could not be written: "+werr.Error()
					}
				}
				if o.StopWhen != nil && o.StopWhen(res) {
					stop.Store(true)
				}
				mu.Lock()
				rep.Scenarios = append(rep.Scenarios, res)
				mu.Unlock()
				if o.Progress != nil {
					o.Progress(res)
				}
				return c, nil
			})
		},
		Options: &godog.Options{
			Format:      "cucumber",
			Paths:       []string{"."},
			FS:          o.Features,
			Concurrency: o.Concurrency,
			Strict:      true,
			// Colours stay "on": godog's colourless writer hands its
			// output on one rune at a time, each through fmt.Fprint (7 % of
			// the fault proofs' CPU went there), while its
			// coloured writer passes bytes through unchanged outside
			// Windows (and there only rewrites escape sequences). The
			// cucumber report is JSON, which has none.
			NoColors: false,
			Tags:     o.Tags,
			Output:   report,
		},
	}
	status := suite.Run()
	if err := report.Flush(); err != nil {
		return rep, err
	}
	rep.FinishedAt = time.Now().UTC()
	// godog's status 1 is a failed scenario, which the results hold; 2 is
	// an error of its own. Every selected scenario must have a result: one
	// missing would be dropped without a word.
	ran := len(rep.Scenarios)
	for _, s := range rep.Scenarios {
		if s.Name == StartupScenario {
			ran-- // the start-up result is the harness's own, not a scenario godog ran
		}
	}
	if status > 1 || ran+rep.NotRun != sel.Selected || (rep.NotRun > 0 && !stop.Load()) {
		return rep, fmt.Errorf("godog ran %d of the %d scenarios selected (status %d)", ran, sel.Selected, status)
	}
	sortResults(rep.Scenarios)
	rep.Levels = levels(rep.Scenarios, o.Required)
	rep.Counts = env.Counts()
	if proxied {
		rep.Observability = append(CompareCounts(rep.Counts, front.Counts().Minus(before), tools), values.checks(ctx, rep.Counts, tools)...)
	}
	if _, err := rep.WriteJUnit(o.OutDir); err != nil {
		return rep, err
	}
	return rep, nil
}

// handshake opens one session before the scenarios, to learn the server's
// name and version, to detect its family from tools/list (unless o.Profile
// names it) and to tell an unreachable target from failing scenarios.
func handshake(ctx context.Context, o Options, rep *Report, env *steps.Env) (profile.Profile, sidecar.Tools, error) {
	rec, err := transcript.Create(filepath.Join(o.OutDir, "transcripts", "_handshake.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		env.AddCounts(rec.Counts())
		rec.Close()
	}()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := target.Connect(ctx, o.Target, rec, target.ConnOptions{Era: o.Era})
	if errors.Is(err, target.ErrEraNotSpoken) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", target.ErrUnreachable, err)
	}
	if init := c.Initialize(); init != nil {
		rep.Target.ServerName, rep.Target.ServerVersion = init.ServerInfo.Name, init.ServerInfo.Version
	}
	names, tools, err := ListTools(ctx, c)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	prof := o.Profile
	if prof == nil {
		if prof, err = profile.Detect(names); err != nil {
			c.Close()
			return nil, nil, err
		}
		rep.Target.ProfileDetected = true
	}
	rep.Target.Profile = prof.Name()
	rec.Notef("profile %s (detected: %t)", prof.Name(), rep.Target.ProfileDetected)
	err = c.Close()
	// What a stdio server writes at start-up, before any scenario, is
	// reported as a failure of its own.
	if d := rec.Defects(); len(d) > 0 {
		rep.Scenarios = append(rep.Scenarios, ScenarioResult{Name: StartupScenario, Feature: "(start-up)", Level: "core",
			Suite: "transport", Status: Failed, Failure: steps.DefectsError(d).Error(), Transcript: rec.Path()})
	}
	return prof, tools, err
}

// ListTools lists the tools of MCP session c: their names, in the server's
// order, and each with its operation enum, as the sidecar labels calls of
// them (one page: the families' servers list a handful of tools).
func ListTools(ctx context.Context, c *target.Conn) ([]string, sidecar.Tools, error) {
	names, raw, err := c.ListTools(ctx)
	if err != nil {
		return nil, nil, err
	}
	return names, sidecar.ParseTools(raw), nil
}

// StartupScenario names the result that reports defects in the traffic of
// the session opened before the scenarios (a stdio server's stdout lines
// that are not JSON-RPC messages); it is there only when there are some.
const StartupScenario = "the server's start-up and first session send only JSON-RPC messages"

func randomNonce() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	s = strings.Trim(nonWord.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}
