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
	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
)

// restartFeature is the feature file whose scenarios the restart faults
// are run against.
const restartFeature = "restart.feature"

// restartFeatures holds only restart.feature: the faults here are about its
// scenarios, and the other durability scenarios would only slow the test.
func restartFeatures(t *testing.T) fs.FS {
	t.Helper()
	data, err := fs.ReadFile(features.FS, restartFeature)
	if err != nil {
		t.Fatal(err)
	}
	return fstest.MapFS{restartFeature: {Data: data}}
}

// restartStores are the stores each restart fault is run against: the
// faults on the files need the filesystem layout, the others apply to
// every store that keeps data.
var restartStores = map[brokenserver.Fault][]string{
	brokenserver.None:                      {"fs", "sqlite"},
	brokenserver.CountsSwappedAfterRestart: {"fs", "sqlite"},
	brokenserver.CritiqueLostAfterRestart:  {"fs", "sqlite"},
	brokenserver.RewriteInPlace:            {"fs"},
	brokenserver.ManifestFirst:             {"fs"},
	brokenserver.ContextLostAfterRestart:   {"fs", "sqlite"},
}

// restartFaultEras are the eras of the faults that only one era can show
// (the others run in both): contexts are the 2026 era's.
var restartFaultEras = map[brokenserver.Fault]target.Era{
	brokenserver.ContextLostAfterRestart: target.Era2026,
}

// restartCatchers names, for each fault, a scenario that must be among
// those that catch it.
var restartCatchers = map[brokenserver.Fault]string{
	brokenserver.CountsSwappedAfterRestart: "every read path answers after a graceful restart",
	brokenserver.CritiqueLostAfterRestart:  "every read path answers after a graceful restart",
	brokenserver.RewriteInPlace:            "as new files, never in place",
	brokenserver.ManifestFirst:             "before the manifest that lists it",
	brokenserver.ContextLostAfterRestart:   "a context outlives a graceful restart",
}

// TestRestartFaultsAreCaught runs the scenarios of restart.feature through
// the broken server in front of the in-process reference server (which
// restarts on its data), in both eras: without a fault every scenario
// applies on fs and passes (on sqlite the @data-dir ones are not
// applicable); with each of brokenserver.RestartFaults, on each store in
// restartStores (in the era restartFaultEras names, if it names one), a
// required scenario fails, the one named in restartCatchers among them.
func TestRestartFaultsAreCaught(t *testing.T) {
	t.Parallel()
	servers := map[string]target.Target{}
	for _, storage := range []string{"fs", "sqlite"} {
		tg, err := embedded.New(context.Background(), embedded.Options{Storage: storage})
		if err != nil {
			t.Fatal(err)
		}
		defer tg.Close()
		servers[storage] = tg
	}
	if len(restartStores) != len(brokenserver.RestartFaults)+1 {
		t.Fatalf("restartStores names %d faults; there are %d and the no-fault proxy", len(restartStores), len(brokenserver.RestartFaults))
	}
	feats := restartFeatures(t)
	for _, era := range target.Eras {
		for _, fault := range append([]brokenserver.Fault{brokenserver.None}, brokenserver.RestartFaults...) {
			if only, ok := restartFaultEras[fault]; ok && only != era {
				continue
			}
			for _, storage := range restartStores[fault] {
				name := string(fault)
				if fault == brokenserver.None {
					name = "no-fault"
				}
				t.Run(string(era)+"/"+storage+"/"+name, func(t *testing.T) {
					brokenserver.Proof(t, string(fault), string(era), storage)
					inner := servers[storage]
					proxy, err := brokenserver.New(inner.HTTPBase(), fault, t.TempDir())
					if err != nil {
						t.Fatal(err)
					}
					proxy.SetDataDir(inner.Info().DataDir)
					srv := httptest.NewServer(proxy)
					defer srv.Close()
					rep, err := conform.Run(context.Background(), conform.Options{Target: behindProxy{Target: inner, url: srv.URL + "/mcp"},
						OutDir: restartOut(t), Required: []string{"core", "intent"}, Features: feats, Era: era,
						StopWhen: stopWhenCaughtBy(restartCatchers[fault])})
					if err != nil {
						t.Fatal(err)
					}
					checkRestartReport(t, rep, fault, storage)
				})
			}
		}
	}
}

// checkRestartReport requires the no-fault proxy to pass every applicable
// scenario (all of them on fs) and a fault to be caught by its catcher.
func checkRestartReport(t *testing.T, rep conform.Report, fault brokenserver.Fault, storage string) {
	t.Helper()
	if fault == brokenserver.None {
		requirePass(t, rep)
		if passed, _, _ := rep.Tally(); passed == 0 {
			t.Error("no restart scenario passed")
		}
		for _, s := range rep.Scenarios {
			switch {
			case s.Status != conform.NotApplicable:
			case s.Failure == "":
				t.Errorf("%s is not applicable without a reason", s.Name)
			case storage == "fs" && !strings.Contains(s.Failure, string(target.Era2026)):
				// On fs only the scenario of the other era's contexts may
				// be left out.
				t.Errorf("on fs every restart scenario of the era applies; %s is not applicable: %s", s.Name, s.Failure)
			}
		}
		return
	}
	caught := caughtBy(rep)
	if len(caught) == 0 || rep.RequiredPassed() {
		t.Fatalf("fault %s was not caught by any restart scenario on %s", fault, storage)
	}
	if want := restartCatchers[fault]; !slices.ContainsFunc(caught, func(c string) bool { return strings.Contains(c, want) }) {
		t.Errorf("fault %s was not caught by %q, only by:\n%s", fault, want, strings.Join(caught, "\n"))
	}
	t.Logf("caught by %d scenarios, e.g. %s", len(caught), caught[0])
}

// restartOut is where a run's transcripts go: TBBENCH_RESTART_OUT when set
// (to read them after the test), else a temporary directory.
func restartOut(t *testing.T) string {
	if dir := os.Getenv("TBBENCH_RESTART_OUT"); dir != "" {
		return filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_"))
	}
	return t.TempDir()
}

// TestRestartScenariosPassInEveryCell runs restart.feature against the
// reference server in every cell that keeps data (HTTP and stdio, fs and
// sqlite) in both eras, behind the sidecar as make run's cells are: every
// scenario passes; only the @data-dir ones are not applicable, on sqlite,
// and the 2026 era's, in the 2025 era. The fs cells that
// TestReferencePassesCoreAndIntentFS runs whole (HTTP and stdio in 2025,
// HTTP in 2026) are not run again.
func TestRestartScenariosPassInEveryCell(t *testing.T) {
	t.Parallel()
	feats := restartFeatures(t)
	for _, era := range target.Eras {
		for _, transport := range []string{"http", "stdio"} {
			for _, storage := range []string{"fs", "sqlite"} {
				if storage == "fs" && (era == target.Era2025 || transport == "http") {
					continue
				}
				t.Run(string(era)+"/"+transport+"/"+storage, func(t *testing.T) {
					tg, err := targetspec.Spec{Transport: transport, Storage: storage}.Open(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					defer tg.Close()
					rep, err := conform.Run(context.Background(), conform.Options{Target: tg, OutDir: restartOut(t),
						Required: []string{"core", "intent"}, Features: feats, Era: era})
					if err != nil {
						t.Fatal(err)
					}
					checkRestartReport(t, rep, brokenserver.None, storage)
				})
			}
		}
	}
}

// elsewhere is a target whose data directory, as the harness knows it,
// holds another layout than the reference server's (here: nothing).
type elsewhere struct {
	target.Target
	dir string
}

func (e elsewhere) Info() target.Info {
	i := e.Target.Info()
	i.DataDir = e.dir
	return i
}
func (e elsewhere) Unwrap() target.Target { return e.Target }

// TestRestartFileScenariosNeedTheReferenceLayout runs the @data-dir
// scenarios of restart.feature against a server whose data directory holds
// no session directories: they are not applicable, naming the layout they
// need.
func TestRestartFileScenariosNeedTheReferenceLayout(t *testing.T) {
	tg, err := embedded.New(context.Background(), embedded.Options{Storage: "fs"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	rep, err := conform.Run(context.Background(), conform.Options{Target: elsewhere{Target: tg, dir: t.TempDir()}, OutDir: restartOut(t),
		Required: []string{"core", "intent"}, Features: restartFeatures(t), Tags: "@data-dir"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) == 0 {
		t.Fatal("no @data-dir scenario ran")
	}
	for _, s := range rep.Scenarios {
		if s.Status != conform.NotApplicable || !strings.Contains(s.Failure, "reference file layout") {
			t.Errorf("%s is %s (%s); want not applicable for want of the reference file layout", s.Name, s.Status, s.Failure)
		}
		t.Logf("%s: %s", s.Name, s.Failure)
	}
}
