package scorecards

import (
	"fmt"
	"strings"
	"time"
)

// Combine makes one scorecard of several runs against the same server, e.g.
// the conformance cells and the load tier of `make run`:
//   - correctness sums the level counts of every run and is scored again;
//   - any other axis measured in one run is taken as it is; measured in
//     several, its checks are listed together (each named after its run)
//     and its score is the lowest of theirs, since a gate must see the
//     worst cell;
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
	axes := map[string][]Axis{}
	var axisOrder []string
	for _, c := range cards {
		out.StartedAt = earlier(out.StartedAt, c.StartedAt)
		out.FinishedAt = later(out.FinishedAt, c.FinishedAt)
		transports = addOnce(transports, c.Target.Transport)
		storages = addOnce(storages, c.Target.Storage)
		for _, a := range c.Axes {
			if !a.Measured() {
				continue
			}
			if a.Name == AxisCorrectness {
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
			if _, ok := axes[a.Name]; !ok {
				axisOrder = append(axisOrder, a.Name)
			}
			a.Checks = prefixChecks(c.RunID, a.Checks)
			axes[a.Name] = append(axes[a.Name], a)
		}
		for _, g := range c.Gates {
			if !isComputedGate(g.Name) {
				out.Gates = append(out.Gates, Gate{Name: c.RunID + ": " + g.Name, Passed: g.Passed, Inconclusive: g.Inconclusive, Detail: g.Detail})
			}
		}
	}
	out.Target.Transport, out.Target.Storage = strings.Join(transports, "+"), strings.Join(storages, "+")
	if len(levels) > 0 {
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

// worst folds the measurements of one axis from several runs.
func worst(as []Axis) Axis {
	if len(as) == 1 {
		return as[0]
	}
	w := as[0]
	var checks []Check
	var summaries []string
	for _, a := range as {
		checks = append(checks, a.Checks...)
		summaries = append(summaries, a.Summary)
		if *a.Score < *w.Score {
			w = a
		}
	}
	score := *w.Score
	return Axis{Name: w.Name, Score: &score, Weight: w.Weight, Checks: checks,
		Summary: fmt.Sprintf("lowest of %d runs: %s", len(as), strings.Join(summaries, "; "))}
}

func prefixChecks(run string, cs []Check) []Check {
	out := make([]Check, len(cs))
	for i, c := range cs {
		c.Name = run + ": " + c.Name
		out[i] = c
	}
	return out
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
