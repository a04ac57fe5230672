// Package loadreport is load.json's model: the Report of a load run and
// every type it holds (targets, phases with their metrics, process figures,
// verification and slopes, threshold outcomes, summaries, comparisons,
// paired ratios, stress ladders, long sessions, listings and restarts, the
// Observatory comparison), with what is computed from it and what is made
// of it:
//
//   - statistics: medians with distribution-free confidence intervals
//     (Stat, Summarize), per-round figures (Report.Rounds), ratios of
//     subjects to the no-op ceiling and the baseline paired round by round
//     (Ratio);
//   - the judging: a finished run's relative thresholds, the ceiling's
//     conditions, its problems and its verdict (Report.Finish), and the
//     merge of the reports of a run's segments (Merge), which judges again;
//   - reading and writing: JSON, Validate against the embedded JSON schema
//     (load.schema.json, Schema), ReadReport, WriteFiles;
//   - the renderers, functions of the model only: Markdown (load.md), HTML
//     and the charts (load.html, Figures for a scorecard's page), Scorecard
//     and the console's Summary.
//
// It imports no runner: not package load (which runs the tiers and fills a
// Report), not the targets. Whatever only reads load.json — tbbench merge
// and compare (scorecards/regress), harness/report, the overhead tool —
// imports this package alone. Its own imports are the load's leaf packages
// (metrics, threshold, workload, chart), scorecards, golang.org/x/perf and
// a JSON schema validator.
package loadreport
