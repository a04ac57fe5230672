package conform_test

import (
	"context"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/thoughtbox-bench/tbbench/features"
	"github.com/thoughtbox-bench/tbbench/harness/conform"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokensidecar"
	"github.com/thoughtbox-bench/tbbench/observability/outcome"
	"github.com/thoughtbox-bench/tbbench/scorecards"
)

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// caughtBy lists the failed scenarios of a run that are not quirks, each
// with its level and the first line of its failure: what caught a fault.
func caughtBy(rep conform.Report) []string {
	var caught []string
	for _, s := range rep.Scenarios {
		if c, ok := catch(s); ok {
			caught = append(caught, c)
		}
	}
	return caught
}

// catch is how caughtBy lists a scenario that failed at a required level.
func catch(s conform.ScenarioResult) (string, bool) {
	if s.Status != conform.Failed || s.Level == "quirk" {
		return "", false
	}
	return "@" + s.Level + " " + s.Name + ": " + firstLine(s.Failure), true
}

// stopWhenCaught stops a proof's run at its first catch.
func stopWhenCaught(s conform.ScenarioResult) bool {
	_, ok := catch(s)
	return ok
}

// stopWhenCaughtBy stops a proof's run once the scenario that must catch
// its fault (want, part of its line in caughtBy) has: the rest cannot
// change the verdict. Without a catcher (want ""), it stops at no scenario.
func stopWhenCaughtBy(want string) func(conform.ScenarioResult) bool {
	if want == "" {
		return nil
	}
	return func(s conform.ScenarioResult) bool {
		c, ok := catch(s)
		return ok && strings.Contains(c, want)
	}
}

// sessionsScope is the session toolhost's scenarios: the @sessions suite
// without the golden-session figures and the limits (figures.feature,
// limits.feature), which have faults and proofs of their own and would
// double the time of every proof here.
const sessionsScope = "sessions.feature exports.feature combinations.feature eras.feature @sessions"

// faultSuites names, for each fault, the suite whose scenarios must catch
// it: the smallest one that does. Running a fault against its suite rather
// than the whole suite keeps the test short; the proxy without a fault runs
// the whole suite.
var faultSuites = map[brokenserver.Fault]string{
	brokenserver.WrongPrev:        "@ledger",
	brokenserver.NoCurrentStage:   "@gating",
	brokenserver.OffByOne:         "@gating",
	brokenserver.BranchLeak:       "@ledger",
	brokenserver.NoRevisionLinks:  "@ledger",
	brokenserver.StageOnFailure:   "@gating",
	brokenserver.NoClose:          "@ledger",
	brokenserver.CannedReads:      "@ledger",
	brokenserver.NoCookbook:       sessionsScope,
	brokenserver.UnscopedSessions: "@validation",

	brokenserver.BodyLimitOffByOne:      "@transport",
	brokenserver.LongTitleTruncated:     "@validation",
	brokenserver.MarkdownNoRevisions:    sessionsScope,
	brokenserver.CipherCutShort:         sessionsScope,
	brokenserver.AgentNameNeedsID:       "@behavioural",
	brokenserver.LastCountsBranches:     "@ledger",
	brokenserver.ReadReportsCurrent:     "@ledger",
	brokenserver.BranchRangeIgnoresGaps: "@ledger",
	brokenserver.StaleExportFile:        "@behavioural",
	brokenserver.MissingExportFile:      "@behavioural",

	brokenserver.NotebookEnvLeaks:          "@notebook",
	brokenserver.NotebookTraversalAccepted: "@notebook",
	brokenserver.NotebookFailedRunNotError: "@notebook",
	brokenserver.RootsHang:                 "@knowledge",
	brokenserver.ModelMissing:              "@resources",
	brokenserver.UnknownModelListsNothing:  "@resources",
	brokenserver.EmptyThoughtQuery:         "@resources",

	brokenserver.SearchIgnoresQuery:           sessionsScope,
	brokenserver.SearchEchoesQuery:            sessionsScope,
	brokenserver.AnalyzeIgnoresBranches:       sessionsScope,
	brokenserver.AnalyzeRevisionRateWrong:     sessionsScope,
	brokenserver.LearningsSkipUnknownMoment:   sessionsScope,
	brokenserver.LearningsSignalAlwaysSuccess: sessionsScope,
	brokenserver.DiscoveryUnknownAction:       sessionsScope,
	brokenserver.ListForeignCursor:            sessionsScope,
	brokenserver.DeepAnalysisIgnoresBranches:  sessionsScope,
	brokenserver.DeepAnalysisUnknownType:      sessionsScope,
}

// bothEraFaults are the faults of the ledger, the stage gating and the
// reads, whose proofs run in both eras; every other fault of
// brokenserver.All acts on an answer's content alike in both, and is proven
// in one era, the eras taken in turn (alternateEras), which keeps make test
// within its time.
var bothEraFaults = []brokenserver.Fault{brokenserver.WrongPrev, brokenserver.NoCurrentStage, brokenserver.OffByOne,
	brokenserver.BranchLeak, brokenserver.NoRevisionLinks, brokenserver.StageOnFailure, brokenserver.NoClose,
	brokenserver.CannedReads, brokenserver.NoCookbook, brokenserver.UnscopedSessions}

// TestEveryInjectedFaultIsCaught runs the suite that targets each fault
// through the broken server: each fault must make at least one required
// scenario fail, and the proxy without a fault must pass the whole suite
// (so it is the fault, not the proxy, that the scenarios catch).
func TestEveryInjectedFaultIsCaught(t *testing.T) {
	t.Parallel()
	ref, err := targetspec.Spec{Transport: "http", Storage: "memory", Direct: true}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Close() }) // after the parallel subtests
	cases := eraCases(append([]brokenserver.Fault{brokenserver.None}, bothEraFaults...))
	var rest []brokenserver.Fault
	for _, f := range brokenserver.All {
		if !slices.Contains(bothEraFaults, f) {
			rest = append(rest, f)
		}
	}
	for _, c := range alternateEras(rest) {
		if c.fault != brokenserver.None {
			cases = append(cases, c)
		}
	}
	for _, c := range cases {
		fault, era := c.fault, c.era
		name := string(fault)
		if fault == brokenserver.None {
			name = "no-fault"
		}
		t.Run(string(era)+"/"+name, func(t *testing.T) {
			// The faults share the server, as a run's scenarios do.
			t.Parallel()
			tags, ok := faultSuites[fault]
			if !ok && fault != brokenserver.None {
				t.Fatalf("fault %s has no suite that must catch it", fault)
			}
			checkFaultCaught(t, ref, fault, tags, era)
		})
	}
}

// checkFaultCaught runs the scenarios scope selects, in era, through a
// broken server that injects fault in front of ref: a fault must make a
// required scenario fail, and the proxy without a fault must pass them all
// (so it is the fault, not the proxy, that the scenarios catch). scope is a
// tag expression, optionally after the feature files to run ("figures.feature
// @sessions"; all of them when it names none): a proof that runs only the
// files whose scenarios can catch its fault takes a fraction of the time.
func checkFaultCaught(t *testing.T, ref target.Target, fault brokenserver.Fault, scope string, era target.Era) {
	t.Helper()
	brokenserver.Proof(t, string(fault), string(era))
	proxy, err := brokenserver.New(ref.HTTPBase(), fault, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	files, tags := scopeOf(scope)
	tg, err := targetspec.Spec{URL: srv.URL + "/mcp", ExportDir: filepath.Join(ref.Info().DataDir, "exports"), Canary: target.Canary()}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	// A fault is caught once one required scenario fails: the proof stops
	// there. Without a fault, every scenario runs.
	var stop func(conform.ScenarioResult) bool
	if fault != brokenserver.None {
		stop = stopWhenCaught
	}
	rep, err := conform.Run(context.Background(), conform.Options{Target: tg, OutDir: t.TempDir(), Required: []string{"core", "intent"},
		Tags: tags, Era: era, Features: featureFiles(t, files), StopWhen: stop})
	if err != nil {
		t.Fatal(err)
	}
	caught := caughtBy(rep)
	if fault == brokenserver.None {
		if len(caught) > 0 {
			t.Fatalf("the proxy without a fault fails scenarios in %s:\n%s", era, strings.Join(caught, "\n"))
		}
		return
	}
	if len(caught) == 0 || rep.RequiredPassed() {
		t.Fatalf("fault %s was not caught by any scenario in %s", fault, era)
	}
	t.Logf("caught by %d scenarios, e.g. %s", len(caught), caught[0])
}

// TestSidecarCountFaultsAreCaught runs scenarios with tool errors and
// JSON-RPC errors (the sidecar suite's protocol errors) through the broken
// sidecar: without a fault its counts
// agree and the run passes; with each fault (a wrong status label, a lost
// one) the counts disagree and the run fails, though every scenario passed.
func TestSidecarCountFaultsAreCaught(t *testing.T) {
	t.Parallel()
	for _, fault := range append([]brokensidecar.Fault{brokensidecar.None}, brokensidecar.All...) {
		name := string(fault)
		if fault == brokensidecar.None {
			name = "no-fault"
		}
		t.Run(name, func(t *testing.T) {
			rep, dir := runBrokenSidecar(t, fault)
			for _, st := range []string{outcome.OK, outcome.ToolError, outcome.Error} {
				n := 0
				for _, m := range rep.Counts.Statuses {
					n += m[st]
				}
				if n == 0 {
					t.Errorf("no request answered %s: the scenarios do not exercise every status (%v)", st, rep.Counts.Statuses)
				}
			}
			card := rep.Scorecard(scorecards.Harness{})
			card.Finish()
			junit, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
			if err != nil {
				t.Fatal(err)
			}
			var failed []string
			for _, c := range rep.Observability {
				if !c.Passed {
					failed = append(failed, c.Name+": "+c.Detail)
				}
			}
			if fault == brokensidecar.None {
				if len(failed) > 0 || !rep.Passed() || card.Verdict != scorecards.VerdictPass {
					t.Fatalf("the sidecar without a fault: verdict %s, count checks failed:\n%s", card.Verdict, strings.Join(failed, "\n"))
				}
				return
			}
			if len(failed) == 0 || rep.Passed() || card.Verdict != scorecards.VerdictFail {
				t.Fatalf("fault %s was not caught: verdict %s, passed %v", fault, card.Verdict, rep.Passed())
			}
			if !strings.Contains(string(junit), `message="the sidecar&#39;s counts differ`) {
				t.Errorf("junit.xml does not report the count difference as a failure")
			}
			t.Logf("caught by %d count checks, e.g. %s", len(failed), failed[0])
		})
	}
}

// eraCase is one fault in one MCP wire era.
type eraCase struct {
	fault brokenserver.Fault
	era   target.Era
}

// runBrokenSidecar runs the scenarios with tool errors and JSON-RPC errors
// (gating, validation, the sidecar suite's protocol errors) against the
// reference server through a sidecar broken by fault, as the proof of that
// fault: every scenario must pass (the fault is in what the sidecar counts,
// not in what the server answers). It returns the report and its directory.
func runBrokenSidecar(t *testing.T, fault brokensidecar.Fault) (conform.Report, string) {
	t.Helper()
	brokenserver.Proof(t, "sidecar "+string(fault))
	inner, err := targetspec.Spec{Transport: "http", Storage: "memory", Direct: true}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tg, err := brokensidecar.Wrap(inner, fault)
	if err != nil {
		inner.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	dir := t.TempDir()
	rep, err := conform.Run(context.Background(), conform.Options{Target: tg, OutDir: dir,
		Required: []string{"core", "intent"}, Tags: "@gating,@validation,@sidecar"})
	if err != nil {
		t.Fatal(err)
	}
	requirePass(t, rep)
	return rep, dir
}

// scopeOf splits a proof's scope into the feature files it names and its
// tag expression.
func scopeOf(scope string) (files []string, tags string) {
	var rest []string
	for _, f := range strings.Fields(scope) {
		if strings.HasSuffix(f, ".feature") {
			files = append(files, f)
		} else {
			rest = append(rest, f)
		}
	}
	return files, strings.Join(rest, " ")
}

// featureFiles returns the embedded feature files named (nil, every file,
// when none is).
func featureFiles(t *testing.T, names []string) fs.FS {
	t.Helper()
	if len(names) == 0 {
		return nil
	}
	out := fstest.MapFS{}
	for _, n := range names {
		b, err := fs.ReadFile(features.FS, n)
		if err != nil {
			t.Fatalf("feature file %s: %v", n, err)
		}
		out[n] = &fstest.MapFile{Data: b}
	}
	return out
}

// alternateEras returns a case for each fault in one era, the eras taken
// in turn, and the proxy without a fault in every era: for faults that act
// on an answer's content alike in both eras, each era still catches some,
// at half the time of running each in both.
func alternateEras(faults []brokenserver.Fault) []eraCase {
	var out []eraCase
	for _, era := range target.Eras {
		out = append(out, eraCase{brokenserver.None, era})
	}
	for i, f := range faults {
		out = append(out, eraCase{f, target.Eras[i%len(target.Eras)]})
	}
	return out
}

// eraCases are the faults in each era: a wrong server is wrong in both.
func eraCases(faults []brokenserver.Fault) []eraCase {
	var out []eraCase
	for _, era := range target.Eras {
		for _, f := range faults {
			out = append(out, eraCase{f, era})
		}
	}
	return out
}

// eraFaultSuites are the suites that must catch each 2026-era fault when
// the run speaks that era.
var eraFaultSuites = map[brokenserver.Fault]string{
	brokenserver.None:                   "@transport,@gating,@critique",
	brokenserver.NoResultType:           "@gating",
	brokenserver.HeaderMismatchAccepted: "@transport",
	brokenserver.ContextLeak:            "@gating",
	brokenserver.CritiqueTwice:          "@critique",
}

// TestEraFaultsAreCaught runs, in the 2026 era, the suites that must catch
// each of that era's faults through a proxy that injects it: every one is
// caught, and the proxy without a fault passes.
func TestEraFaultsAreCaught(t *testing.T) {
	t.Parallel()
	ref, err := targetspec.Spec{Transport: "http", Storage: "memory", Direct: true}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Close() })
	for _, fault := range append([]brokenserver.Fault{brokenserver.None}, brokenserver.EraFaults...) {
		name := string(fault)
		if fault == brokenserver.None {
			name = "no-fault"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tags, ok := eraFaultSuites[fault]
			if !ok {
				t.Fatalf("fault %s has no suite that must catch it", fault)
			}
			checkFaultCaught(t, ref, fault, tags, target.Era2026)
		})
	}
}
