package threshold

import (
	"fmt"
	"time"
)

// Threshold is one pass/fail criterion of a run: an expression over a selected
// metric.
type Threshold struct {
	Selector   Selector
	Expression Expression
	// AbortOnFail stops the run as soon as the threshold fails while it runs
	// (k6's abortOnFail), rather than only failing it at the end.
	AbortOnFail bool
	// DelayAbortEval is how long into the run the threshold is first allowed
	// to abort it, so that a few early samples do not stop a run (k6's
	// delayAbortEval).
	DelayAbortEval time.Duration
}

// Parse parses a selector and an expression into a threshold, checking that
// the expression's aggregation applies to the selected metric. Errors are
// *SyntaxError values naming the column of the problem.
func Parse(selector, expression string) (Threshold, error) {
	sel, err := ParseSelector(selector)
	if err != nil {
		return Threshold{}, err
	}
	expr, err := ParseExpression(sel.Kind(), expression)
	if err != nil {
		return Threshold{}, err
	}
	return Threshold{Selector: sel, Expression: expr}, nil
}

// MustParse is Parse for thresholds known to be valid; it panics on an error.
func MustParse(selector, expression string) Threshold {
	t, err := Parse(selector, expression)
	if err != nil {
		panic(err)
	}
	return t
}

// String returns the threshold as "selector: expression", with
// " (abortOnFail)" when it aborts the run.
func (t Threshold) String() string {
	s := fmt.Sprintf("%s: %s", t.Selector, t.Expression)
	if t.AbortOnFail {
		s += " (abortOnFail)"
	}
	return s
}
