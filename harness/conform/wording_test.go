package conform_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/thoughtbox-bench/tbbench/harness/target/embedded"
	"github.com/thoughtbox-bench/tbbench/harness/target/targetspec"
	"github.com/thoughtbox-bench/tbbench/harness/testdata/brokenserver"
)

// TestRewordedErrorsPass is the converse of the fault tests: through the
// broken server with brokenserver.Reworded, which rewrites every error
// message to wording of its own and keeps only the values it names, every
// @core and @intent scenario must still pass, as they must for a third
// implementation with its own messages. The whole suite runs against a URL
// (so the durability scenarios do not apply there); the durability
// scenarios, which judge damage reports, run behind the proxy in front of
// a restartable server.
func TestRewordedErrorsPass(t *testing.T) {
	t.Parallel()
	t.Run("all", func(t *testing.T) {
		ref, err := targetspec.Spec{Transport: "http", Storage: "memory", Direct: true}.Open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer ref.Close()
		proxy, err := brokenserver.New(ref.HTTPBase(), brokenserver.Reworded, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(proxy)
		defer srv.Close()
		rep := runTagged(t, targetspec.Spec{URL: srv.URL + "/mcp", ExportDir: filepath.Join(ref.Info().DataDir, "exports")}, "")
		requirePass(t, rep)
		if !rep.RequiredPassed() {
			t.Errorf("the required levels did not pass: %+v", rep.Levels)
		}
		if passed, _, _ := rep.Tally(); passed < 40 {
			t.Errorf("only %d scenarios passed", passed)
		}
		if n := proxy.Rewritten(); n < 20 {
			t.Errorf("only %d error messages were rewritten", n)
		}
	})
	t.Run("durability", func(t *testing.T) {
		inner, err := embedded.New(context.Background(), embedded.Options{Storage: "fs"})
		if err != nil {
			t.Fatal(err)
		}
		defer inner.Close()
		proxy, err := brokenserver.New(inner.HTTPBase(), brokenserver.Reworded, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(proxy)
		defer srv.Close()
		rep := runDurability(t, behindProxy{Target: inner, url: srv.URL + "/mcp"}, nil)
		requirePass(t, rep)
		if !rep.RequiredPassed() {
			t.Errorf("the required levels did not pass: %+v", rep.Levels)
		}
		if proxy.Rewritten() == 0 {
			t.Error("no error message was rewritten")
		}
	})
}
