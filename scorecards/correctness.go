package scorecards

import (
	"fmt"
	"strings"
)

// Correctness returns the correctness axis for the scenario counts of a
// run, weighted 0.25 (§5.7).
//
// The score is the share of passed scenarios over the required levels only:
// passed / (passed + failed + skipped), so a skipped required scenario counts
// as not passed. Levels that are not required are reported but do not count;
// the quirk level is always informational, whatever its Required field says.
// With no scenario in any required level the axis is not measured (nil
// score).
//
// The levels are stored in the order core, intent, quirk, then any other.
// The §5.7 weighting of critical invariants is not applied here: the levels
// are the unit of criticality.
func Correctness(levels []LevelResult) Axis {
	ls := sortedLevels(levels)
	var passed, failed, skipped int
	var info []string
	for i := range ls {
		if ls[i].Level == Quirk {
			ls[i].Required = false
		}
		l := ls[i]
		if !l.gated() {
			info = append(info, fmt.Sprintf("%s %d/%d", l.Level, l.Passed, l.Total()))
			continue
		}
		passed += l.Passed
		failed += l.Failed
		skipped += l.Skipped
	}
	total := passed + failed + skipped
	a := Axis{
		Name:   AxisCorrectness,
		Score:  ratio(passed, total),
		Weight: DefaultWeight(AxisCorrectness),
		Levels: ls,
	}
	if total == 0 {
		a.Summary = "no scenario of a required level ran"
	} else {
		a.Summary = fmt.Sprintf("%d of %d required scenarios passed (%d failed, %d skipped; a skip counts as not passed)",
			passed, total, failed, skipped)
	}
	if len(info) > 0 {
		a.Summary += "; informational: " + strings.Join(info, ", ")
	}
	return a
}

// sortedLevels returns a copy of levels ordered core, intent, quirk, then
// the others in their original order.
func sortedLevels(levels []LevelResult) []LevelResult {
	out := make([]LevelResult, 0, len(levels))
	for _, want := range []Level{Core, Intent, Quirk} {
		for _, l := range levels {
			if l.Level == want {
				out = append(out, l)
			}
		}
	}
	for _, l := range levels {
		if l.Level != Core && l.Level != Intent && l.Level != Quirk {
			out = append(out, l)
		}
	}
	return out
}
