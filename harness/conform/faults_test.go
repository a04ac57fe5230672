package conform_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/conform"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
)

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

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
	brokenserver.NoCookbook:       "@sessions",
	brokenserver.UnscopedSessions: "@validation",

	brokenserver.BodyLimitOffByOne:      "@transport",
	brokenserver.LongTitleTruncated:     "@validation",
	brokenserver.MarkdownNoRevisions:    "@sessions",
	brokenserver.CipherCutShort:         "@sessions",
	brokenserver.AgentNameNeedsID:       "@behavioural",
	brokenserver.LastCountsBranches:     "@ledger",
	brokenserver.ReadReportsCurrent:     "@ledger",
	brokenserver.BranchRangeIgnoresGaps: "@ledger",
	brokenserver.StaleExportFile:        "@behavioural",
	brokenserver.MissingExportFile:      "@behavioural",
}

// TestEveryInjectedFaultIsCaught runs the suite that targets each fault
// through the broken server: each fault must make at least one required
// scenario fail, and the proxy without a fault must pass the whole suite
// (so it is the fault, not the proxy, that the scenarios catch).
func TestEveryInjectedFaultIsCaught(t *testing.T) {
	ref, err := targetspec.Spec{Transport: "http", Storage: "memory", Direct: true}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	for _, fault := range append([]brokenserver.Fault{brokenserver.None}, brokenserver.All...) {
		name := string(fault)
		if fault == brokenserver.None {
			name = "no-fault"
		}
		t.Run(name, func(t *testing.T) {
			proxy, err := brokenserver.New(ref.HTTPBase(), fault, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(proxy)
			defer srv.Close()
			tags, ok := faultSuites[fault]
			if !ok && fault != brokenserver.None {
				t.Fatalf("fault %s has no suite that must catch it", fault)
			}
			rep := runTagged(t, targetspec.Spec{URL: srv.URL + "/mcp",
				ExportDir: filepath.Join(ref.Info().DataDir, "exports")}, tags)
			var caught []string
			for _, s := range rep.Scenarios {
				if s.Status == conform.Failed && s.Level != "quirk" {
					caught = append(caught, "@"+s.Level+" "+s.Name+": "+firstLine(s.Failure))
				}
			}
			if fault == brokenserver.None {
				if len(caught) > 0 {
					t.Fatalf("the proxy without a fault fails scenarios:\n%s", strings.Join(caught, "\n"))
				}
				return
			}
			if len(caught) == 0 || rep.RequiredPassed() {
				t.Fatalf("fault %s was not caught by any scenario", fault)
			}
			t.Logf("caught by %d scenarios, e.g. %s", len(caught), caught[0])
		})
	}
}
