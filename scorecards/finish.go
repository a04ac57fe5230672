package scorecards

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Names of the gates that [Scorecard.Finish] computes.
const (
	GateRequiredLevels = "required levels all pass"
	GateCorrectness    = "correctness >= 0.95"
	GateSecurity       = "no canary leak"
)

// CorrectnessThreshold is the lowest correctness score that passes the
// correctness gate (§5.7).
const CorrectnessThreshold = 0.95

// Finish completes the scorecard:
//   - sets SchemaVersion when empty;
//   - lists every standard axis, adding the missing ones as not measured
//     with their default weight, standard axes first in the §5.7 order, then
//     the others in their order;
//   - computes Overall as the weighted mean of the measured axes, the
//     weights renormalised over those axes only, rounded to 6 decimals (nil
//     when none is measured or their weights sum to 0);
//   - computes the gates: GateRequiredLevels (every required level has no
//     failure and no skip) and GateCorrectness (correctness measured and at
//     least CorrectnessThreshold) when the run set out to measure
//     correctness (see [judgesCorrectness]), and, when the security axis is
//     measured, GateSecurity (security score 1: security is a gate in §5.7);
//     they are followed by the gates the caller added;
//   - sets Verdict to VerdictPass iff every gate passed, VerdictFail when
//     one failed, else VerdictInconclusive.
//
// Finish may be called again after a change: the computed gates are
// replaced, the caller's kept.
func (s *Scorecard) Finish() {
	if s.SchemaVersion == "" {
		s.SchemaVersion = SchemaVersion
	}
	judged := judgesCorrectness(s.Axes, s.Gates)
	s.Axes = completeAxes(s.Axes)
	s.Overall = overall(s.Axes)
	gates := computedGates(s.Axes, judged)
	for _, g := range s.Gates {
		if !isComputedGate(g.Name) {
			gates = append(gates, g)
		}
	}
	s.Gates = gates
	s.Verdict = VerdictPass
	for _, g := range s.Gates {
		switch {
		case g.Failed():
			s.Verdict = VerdictFail
		case !g.Passed && s.Verdict == VerdictPass:
			s.Verdict = VerdictInconclusive
		}
	}
}

// notMeasured is the summary of an axis that Finish adds because the run
// did not measure it.
const notMeasured = "not measured in this run"

// unmeasuredPlaceholder reports whether a is an axis Finish added as not
// measured, rather than one a run reported (a conformance run's correctness
// axis always has a summary of its own, even when no scenario ran).
func unmeasuredPlaceholder(a Axis) bool {
	return !a.Measured() && a.Summary == notMeasured && len(a.Levels) == 0 && len(a.Checks) == 0
}

// judgesCorrectness reports whether the correctness gates apply to a run
// with these axes and its own gates: when it reported a correctness axis (a
// conformance run, whose scenarios may all have failed to run), or when it
// measured nothing and brought no gate, which never passes. A run that set
// out to measure something else (a load tier, the robustness catalogue, the
// official suite) is judged by its own gates: its scorecard does not fail
// for want of scenarios it never meant to run.
func judgesCorrectness(axes []Axis, gates []Gate) bool {
	anyMeasured := false
	for _, a := range axes {
		if a.Name == AxisCorrectness && !unmeasuredPlaceholder(a) {
			return true
		}
		anyMeasured = anyMeasured || a.Measured()
	}
	return !anyMeasured && !slices.ContainsFunc(gates, func(g Gate) bool { return !isComputedGate(g.Name) })
}

// completeAxes returns the axes with every standard axis present, in the
// standard order, followed by the other axes.
func completeAxes(axes []Axis) []Axis {
	out := make([]Axis, 0, len(axes)+len(standardAxes))
	standard := map[string]bool{}
	for _, sa := range standardAxes {
		standard[sa.name] = true
		found := false
		for _, a := range axes {
			if a.Name == sa.name {
				out = append(out, a)
				found = true
			}
		}
		if !found {
			out = append(out, Axis{Name: sa.name, Weight: sa.weight, Summary: notMeasured})
		}
	}
	for _, a := range axes {
		if !standard[a.Name] {
			out = append(out, a)
		}
	}
	return out
}

// overall returns the weighted mean of the measured axes with a positive
// weight.
func overall(axes []Axis) *float64 {
	var sum, weights float64
	for _, a := range axes {
		if a.Measured() && a.Weight > 0 {
			sum += a.Weight * *a.Score
			weights += a.Weight
		}
	}
	if weights == 0 {
		return nil
	}
	// Rounded to 6 decimals for readable result files; clamped against
	// rounding.
	o := min(max(math.Round(sum/weights*1e6)/1e6, 0), 1)
	return &o
}

// measuredWeight returns the names of the measured axes that count in the
// overall score and the sum of their weights, and the names of the axes
// that are not measured.
func measuredWeight(axes []Axis) (measured []string, weight float64, missing []string) {
	for _, a := range axes {
		switch {
		case !a.Measured():
			missing = append(missing, a.Name)
		case a.Weight > 0:
			measured = append(measured, a.Name)
			weight += a.Weight
		}
	}
	return measured, weight, missing
}

// isComputedGate reports whether Finish computes the gate of that name.
func isComputedGate(name string) bool {
	return name == GateRequiredLevels || name == GateCorrectness || name == GateSecurity
}

// computedGates returns the gates Finish derives from the axes, the
// correctness gates only when correctness is judged.
func computedGates(axes []Axis, correctness bool) []Gate {
	gates := []Gate{} // an empty list, never null, in scorecard.json
	if correctness {
		gates = append(gates, requiredLevelsGate(axes), correctnessGate(axes))
	}
	for _, a := range axes {
		if a.Name == AxisSecurity && a.Measured() {
			gates = append(gates, securityGate(a))
			break
		}
	}
	return gates
}

// requiredLevelsGate passes when at least one level is required and no
// required level has a failed or skipped scenario.
func requiredLevelsGate(axes []Axis) Gate {
	g := Gate{Name: GateRequiredLevels}
	var required, bad []string
	for _, a := range axes {
		if a.Name != AxisCorrectness {
			continue
		}
		for _, l := range a.Levels {
			if !l.gated() {
				continue
			}
			required = append(required, string(l.Level))
			if l.Failed > 0 || l.Skipped > 0 {
				bad = append(bad, fmt.Sprintf("%s: %d failed, %d skipped", l.Level, l.Failed, l.Skipped))
			}
		}
	}
	switch {
	case len(required) == 0:
		g.Detail = "no required level was reported"
	case len(bad) > 0:
		g.Detail = strings.Join(bad, "; ")
	default:
		g.Passed = true
		g.Detail = "all scenarios of " + strings.Join(required, ", ") + " passed"
	}
	return g
}

// correctnessGate passes when the correctness axis is measured and at least
// CorrectnessThreshold.
func correctnessGate(axes []Axis) Gate {
	g := Gate{Name: GateCorrectness, Detail: "correctness not measured"}
	for _, a := range axes {
		if a.Name == AxisCorrectness && a.Measured() {
			g.Passed = *a.Score >= CorrectnessThreshold
			g.Detail = fmt.Sprintf("correctness %s, threshold %s", percent(*a.Score), percent(CorrectnessThreshold))
			break
		}
	}
	return g
}

// securityGate passes when the measured security axis scores 1, i.e. no
// canary leaked (§5.7: security is 1 iff zero leaks, and 0 fails the run).
func securityGate(a Axis) Gate {
	g := Gate{Name: GateSecurity, Passed: *a.Score >= 1}
	var leaks []string
	for _, c := range a.Checks {
		if c.Failed() {
			leaks = append(leaks, c.Name)
		}
	}
	switch {
	case g.Passed:
		g.Detail = "no canary found in any telemetry sink"
	case len(leaks) > 0:
		g.Detail = "failed: " + strings.Join(leaks, ", ")
	default:
		g.Detail = fmt.Sprintf("security %s, must be 100%%", percent(*a.Score))
	}
	return g
}
