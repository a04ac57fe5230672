// Package regress sets a run against a baseline and decides whether it
// regressed: `tbbench compare` and `tbbench baseline`.
//
// A run is a scorecard.json, with the load.json of the same run when there
// is one. The axis scores and the conformance level pass rates are compared
// by [scorecards.CompareLimits] (a drop of more than the minimum effect, 5
// percentage points unless a gate file says otherwise, is a regression). The load figures —
// throughput, p99 and the thought's p99 of every target, one value per
// round — are compared over the rounds: a Mann–Whitney U test
// (golang.org/x/perf/benchmath, α = 0.05) decides whether they differ at
// all, and the Hodges–Lehmann estimate of the ratio current/baseline with
// its distribution-free 95 % confidence interval says by how much. A
// figure regresses only when the difference is significant and the
// estimated change is worse than the minimum effect (5 %, or the gate
// file's limit): one setting, min-effect, read as points of a score and as
// a fraction of a load figure. With too few rounds the test can never reach p < α (3
// against 3: the smallest p is 0.1, see [MinP]): such a figure cannot
// detect a difference, and a comparison where no figure can judged nothing
// ([Result.NothingJudged]). Runs on machines of different fingerprints are
// not comparable: everything is shown, nothing is gated.
package regress
