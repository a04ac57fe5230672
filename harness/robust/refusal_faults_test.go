package robust_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/robust"
	"github.com/thoughtbox-bench/tbbench/harness/target"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
)

// refusalInputs are the inputs the refusal fault tests send, in catalogue
// order: a refusal on the main connection, the first thought revising a
// thought that does not exist and another refused first thought on the
// fresh connection, a refused load_context and two calls before their
// stage on the entry connection.
var refusalInputs = []string{"thought/totalThoughts-zero", "thought/number-zero-new-session", "thought/revision-in-new-session",
	"load_context/unknown", "stage/cipher-before-its-stage", "stage/read_thoughts-before-its-stage"}

// knownDataDir is a target whose data directory the harness is told.
type knownDataDir struct {
	target.Target
	dir string
}

func (k knownDataDir) Info() target.Info {
	info := k.Target.Info()
	info.DataDir = k.dir
	return info
}

// throughBroken runs the inputs through the broken server with fault, in
// front of the reference server with fs storage, speaking era, its data
// directory known, and returns the results by input name.
func throughBroken(t *testing.T, fault brokenserver.Fault, era target.Era, names []string) map[string]robust.Result {
	t.Helper()
	ref, err := targetspec.Spec{Transport: "http", Storage: "fs", Direct: true}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	proxy, err := brokenserver.New(ref.HTTPBase(), fault, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proxy.SetDataDir(ref.Info().DataDir)
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	url, err := target.NewURL(context.Background(), srv.URL+"/mcp", target.URLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer url.Close()
	tg := knownDataDir{Target: url, dir: ref.Info().DataDir}
	var inputs []robust.Input
	for _, in := range robust.Catalogue() {
		for _, n := range names {
			if in.Name == n {
				inputs = append(inputs, in)
			}
		}
	}
	if len(inputs) != len(names) {
		t.Fatalf("%d of the inputs %v are in the catalogue", len(inputs), names)
	}
	results, err := robust.Run(context.Background(), tg, robust.Options{Inputs: inputs, NoFaults: true, Era: era})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]robust.Result{}
	for _, r := range results {
		out[r.Name] = r
	}
	return out
}

// TestRefusalsThatChangeSomethingFail runs refused inputs through the
// broken server in each era: without a fault every one passes; with each
// refusal fault the inputs it acts on fail for what they changed, named by
// the read (or the file) that saw it, and the others pass.
func TestRefusalsThatChangeSomethingFail(t *testing.T) {
	for _, era := range target.Eras {
		for _, fault := range append([]brokenserver.Fault{brokenserver.None}, brokenserver.RefusalFaults...) {
			name := string(fault)
			if fault == brokenserver.None {
				name = "no-fault"
			}
			t.Run(string(era)+"/"+name, func(t *testing.T) {
				t.Parallel()
				brokenserver.Proof(t, "robust "+string(fault), string(era))
				got := throughBroken(t, fault, era, refusalInputs)
				// want are the inputs that must fail, each with what its
				// detail must name.
				var want map[string][]string
				switch fault {
				case brokenserver.RefusedRevisionLeavesSession:
					// The session is listed, and the fresh connection's
					// reads of its current session read it.
					want = map[string][]string{"thought/revision-in-new-session": {"changed main list_sessions", "changed fresh read_thoughts", "changed fresh get_structure"}}
				case brokenserver.RefusedThoughtLeavesFile:
					// Every refused thought; the refusals of other
					// operations leave nothing.
					inData := []string{"in the data directory: added tmp/refused-"}
					want = map[string][]string{"thought/totalThoughts-zero": inData, "thought/number-zero-new-session": inData,
						"thought/revision-in-new-session": inData}
				case brokenserver.RefusalAdvancesStage:
					if era.Modern() {
						// The entry connection has no context: the stage
						// moved in the one the refusal hands out.
						want = map[string][]string{"stage/cipher-before-its-stage": {"hands the client a new context"}}
					} else {
						// The stage read from the gated reads' refusal.
						want = map[string][]string{"stage/cipher-before-its-stage": {"changed entry read_thoughts", "changed entry get_structure"}}
					}
				}
				for _, n := range refusalInputs {
					r, ok := got[n]
					switch {
					case !ok:
						t.Errorf("%s: no result", n)
					case want[n] == nil && !r.Passed:
						t.Errorf("%s failed: %s", n, r.Detail)
					case want[n] != nil && r.Passed:
						t.Errorf("fault %s: %s passed: %s", fault, n, r.Detail)
					case want[n] != nil:
						if !strings.Contains(r.Detail, "it changed something") {
							t.Errorf("fault %s: %s failed, but not for a change: %s", fault, n, r.Detail)
						}
						for _, w := range want[n] {
							if !strings.Contains(r.Detail, w) {
								t.Errorf("fault %s: %s: %q does not name %q", fault, n, r.Detail, w)
							}
						}
					}
				}
			})
		}
	}
}
