package conform

import (
	"context"
	"errors"

	"github.com/cucumber/godog"
)

// skipWatch remembers why a step skipped the rest of its scenario: a step
// that cannot judge the target returns godog.ErrSkip wrapped with the
// reason, and the scenario is then not applicable, never passed. godog
// itself counts a skipped scenario as neither passed nor failed, so
// without the watch a skipped scenario would pass.
type skipWatch struct {
	err error // the first skip of the scenario, nil when none
}

// watchSkips watches the steps of every scenario of sc.
func watchSkips(sc *godog.ScenarioContext) *skipWatch {
	w := &skipWatch{}
	sc.StepContext().After(func(c context.Context, _ *godog.Step, _ godog.StepResultStatus, err error) (context.Context, error) {
		if errors.Is(err, godog.ErrSkip) && w.err == nil {
			w.err = err
		}
		return c, err
	})
	return w
}

// reset forgets the skip of the last scenario.
func (w *skipWatch) reset() { w.err = nil }

// verdict is the status and failure of a scenario a step skipped: not
// applicable, for the reason the step gave, or failed when it gave none.
func (w *skipWatch) verdict() (status, failure string) {
	if w.err == godog.ErrSkip {
		return Failed, "a step skipped the scenario without saying why (wrap godog.ErrSkip with the reason)"
	}
	return NotApplicable, w.err.Error()
}
