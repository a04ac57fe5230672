// Package scorecards holds the result of one tbbench run in a form that
// people and machines can read: the per-axis scores, the overall scalar, the
// hard gates and the verdict, with the target, harness and machine the run
// used (upstream-sidecar-benchmarks.md §5.6 and §5.7).
//
// A run builds its axes with [Correctness] (conformance scenarios counted by
// level: @core, @intent, @quirk) and [ChecksAxis] (any axis that is a share
// of passed checks), puts them into a [Scorecard] and calls
// [Scorecard.Finish], which adds the axes that were not measured, computes
// the overall score and the gates and sets the verdict.
//
// [Scorecard.JSON] writes the result file, which [Validate] checks against
// the embedded JSON schema ([Schema]) and [Load] reads back.
// [Scorecard.Markdown] renders the human summary and [Scorecard.HTML] the
// self-contained page (harness/report adds a load run's charts to it). [Compare] sets a run
// against a committed baseline from scorecards/baselines/ and reports the
// regressions, or that the two runs are incomparable because they ran on
// different machines.
package scorecards
