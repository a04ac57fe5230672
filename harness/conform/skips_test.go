package conform

import (
	"context"
	"fmt"
	"io"
	"testing"
	"testing/fstest"

	"github.com/cucumber/godog"
)

// TestSkippedScenarioNeverPasses plays real godog scenarios whose steps
// skip: one wraps godog.ErrSkip with its reason (not applicable, for that
// reason), one returns it bare (failed: a skip must say why), and one
// does not skip. The steps after a skip do not run.
func TestSkippedScenarioNeverPasses(t *testing.T) {
	feature := `Feature: skips
  Scenario: with a reason
    Given a step that skips because "the target keeps no files"
    Then no later step runs

  Scenario: without a reason
    Given a step that skips without a reason
    Then no later step runs

  Scenario: no skip
    Given a step that passes
`
	type outcome struct{ status, failure string }
	got := map[string]outcome{}
	laterSteps := 0
	suite := godog.TestSuite{
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			skipped := watchSkips(sc)
			sc.Step(`^a step that skips because "([^"]*)"$`, func(why string) error {
				return fmt.Errorf("%s: %w", why, godog.ErrSkip)
			})
			sc.Step(`^a step that skips without a reason$`, func() error { return godog.ErrSkip })
			sc.Step(`^a step that passes$`, func() error { return nil })
			sc.Step(`^no later step runs$`, func() error { laterSteps++; return nil })
			sc.Before(func(c context.Context, _ *godog.Scenario) (context.Context, error) {
				skipped.reset()
				return c, nil
			})
			sc.After(func(c context.Context, s *godog.Scenario, err error) (context.Context, error) {
				o := outcome{status: Passed}
				switch {
				case skipped.err != nil:
					o.status, o.failure = skipped.verdict()
				case err != nil:
					o.status, o.failure = Failed, err.Error()
				}
				got[s.Name] = o
				return c, nil
			})
		},
		Options: &godog.Options{
			Format: "progress", Output: io.Discard, Strict: true, NoColors: true,
			Paths: []string{"."}, FS: fstest.MapFS{"skips.feature": {Data: []byte(feature)}},
		},
	}
	suite.Run()
	want := map[string]outcome{
		"with a reason":    {NotApplicable, "the target keeps no files: skipped"},
		"without a reason": {Failed, "a step skipped the scenario without saying why (wrap godog.ErrSkip with the reason)"},
		"no skip":          {Passed, ""},
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("scenario %q: %+v, want %+v", name, got[name], w)
		}
	}
	if laterSteps != 0 {
		t.Errorf("%d steps ran after a skip, want none", laterSteps)
	}
}
