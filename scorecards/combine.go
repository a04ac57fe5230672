package scorecards

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Combine makes one scorecard of several runs against the same server, e.g.
// the conformance cells and the load tier of `make run`:
//   - correctness sums the level counts of every run and is scored again;
//   - any other axis measured in one run is taken as it is; measured in
//     several, its checks are listed together (each named after its run)
//     and its score and summary are those of the run that scored lowest
//     (the first of them on a tie), named, since a gate must see the worst
//     cell;
//   - the caller's gates of every run are kept, named after their run;
//   - the target is the first run's, its cells (transport, storage) joined.
//
// The result is finished ([Scorecard.Finish]).
func Combine(runID string, cards []Scorecard) Scorecard {
	out := Scorecard{SchemaVersion: SchemaVersion, RunID: runID}
	if len(cards) == 0 {
		out.Finish()
		return out
	}
	out.Target, out.Harness, out.Machine = cards[0].Target, cards[0].Harness, cards[0].Machine
	out.StartedAt, out.FinishedAt = cards[0].StartedAt, cards[0].FinishedAt
	var transports, storages []string
	levels := map[Level]*LevelResult{}
	var levelOrder []Level
	sawCorrectness := false
	axes := map[string][]runAxis{}
	var axisOrder []string
	for _, c := range cards {
		out.StartedAt = earlier(out.StartedAt, c.StartedAt)
		out.FinishedAt = later(out.FinishedAt, c.FinishedAt)
		transports = addOnce(transports, c.Target.Transport)
		storages = addOnce(storages, c.Target.Storage)
		for _, a := range c.Axes {
			if a.Name == AxisCorrectness && !unmeasuredPlaceholder(a) {
				// Counted even when no scenario ran: a conformance run
				// that judged nothing keeps its gates failing.
				sawCorrectness = true
				for _, l := range a.Levels {
					if levels[l.Level] == nil {
						levels[l.Level] = &LevelResult{Level: l.Level, Required: l.Required}
						levelOrder = append(levelOrder, l.Level)
					}
					sum := levels[l.Level]
					sum.Passed, sum.Failed, sum.Skipped = sum.Passed+l.Passed, sum.Failed+l.Failed, sum.Skipped+l.Skipped
					sum.Required = sum.Required || l.Required
				}
				continue
			}
			if !a.Measured() || a.Name == AxisCorrectness {
				continue
			}
			if _, ok := axes[a.Name]; !ok {
				axisOrder = append(axisOrder, a.Name)
			}
			a.Checks = prefixChecks(c.RunID, a.Checks)
			axes[a.Name] = append(axes[a.Name], runAxis{run: c.RunID, axis: a})
		}
		for _, g := range c.Gates {
			if !isComputedGate(g.Name) {
				out.Gates = append(out.Gates, Gate{Name: named(c.RunID, g.Name), Passed: g.Passed, Inconclusive: g.Inconclusive, Detail: g.Detail})
			}
		}
	}
	out.Target.Transport, out.Target.Storage = strings.Join(transports, "+"), strings.Join(storages, "+")
	if sawCorrectness {
		var ls []LevelResult
		for _, l := range levelOrder {
			ls = append(ls, *levels[l])
		}
		out.Axes = append(out.Axes, Correctness(ls))
	}
	for _, name := range axisOrder {
		out.Axes = append(out.Axes, worst(axes[name]))
	}
	out.Finish()
	return out
}

// runAxis is one run's measurement of an axis.
type runAxis struct {
	run  string
	axis Axis
}

// worst folds the measurements of one axis from several runs: every check,
// and the score and summary of the lowest, named after its run. (The
// others' summaries are in their own runs' scorecards: listed here they
// made a line per axis of every cell's counts.)
//
// A run that was itself combined (the eras of a cell) counts as the runs it
// was made of, and the summary names the lowest of those alone: "lowest of
// 12 runs, CELL era 2025-11-25: …", not one "lowest of" inside another.
func worst(as []runAxis) Axis {
	if len(as) == 1 {
		return as[0].axis
	}
	w := as[0]
	var checks []Check
	runs := 0
	for _, a := range as {
		checks = append(checks, a.axis.Checks...)
		n, _ := combinedRuns(a.axis.Summary)
		runs += n
		if *a.axis.Score < *w.axis.Score {
			w = a
		}
	}
	score := *w.axis.Score
	summary := w.run + ": " + w.axis.Summary
	if _, inner := combinedRuns(w.axis.Summary); inner != "" {
		summary = inner // already "RUN…: …", RUN named after a part of w.run
	}
	return Axis{Name: w.axis.Name, Score: &score, Weight: w.axis.Weight, Checks: checks,
		Summary: fmt.Sprintf("lowest of %d runs, %s", runs, summary)}
}

// combinedRuns reads a summary that worst wrote: the number of runs it
// folded and what follows ("RUN: …"). Any other summary is one run's, and
// inner is "".
func combinedRuns(summary string) (runs int, inner string) {
	rest, ok := strings.CutPrefix(summary, "lowest of ")
	if !ok {
		return 1, ""
	}
	count, inner, ok := strings.Cut(rest, " runs, ")
	n, err := strconv.Atoi(count)
	if !ok || err != nil || n < 2 {
		return 1, ""
	}
	return n, inner
}

func prefixChecks(run string, cs []Check) []Check {
	out := make([]Check, len(cs))
	for i, c := range cs {
		c.Name = named(run, c.Name)
		out[i] = c
	}
	return out
}

// named puts run before name, unless name already starts with it (a gate
// or check of a run combined before, named after a part of run such as
// "RUN era 2025-11-25").
func named(run, name string) string {
	if rest, ok := strings.CutPrefix(name, run); ok && (strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, ":")) {
		return name
	}
	return run + ": " + name
}

func addOnce(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func earlier(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
