package scorecards

import (
	"fmt"
	"slices"
)

// DefaultMinEffect is the smallest change that counts as a regression, the
// one minimum-effect setting of every comparison with a baseline (a gate
// file's min-effect replaces it): an axis score or a required level's pass
// rate that drops by more than this many points (0.05: 5 percentage
// points, §5.6, the upstream pass-rate threshold), or a load figure that
// moves in the bad direction by more than this fraction of its baseline
// (package regress).
const DefaultMinEffect = 0.05

// tolerance absorbs float rounding so that a drop of exactly the threshold
// is not a regression.
const tolerance = 1e-9

// The kinds of compared figure.
const (
	KindAxis  = "axis"  // an axis score
	KindLevel = "level" // a required level's pass rate
)

// Comparison is the result of setting a run against a baseline.
type Comparison struct {
	// Comparable is false when the machine fingerprints (CPU model, cores,
	// GOMAXPROCS) differ; then Regressions is empty: nothing is gated.
	Comparable bool
	// Baseline and Current are the fingerprints of the two machines.
	Baseline, Current string
	// Deltas lists every figure present in either scorecard.
	Deltas []Delta
	// Regressions lists the figures that dropped by more than their
	// limit.
	Regressions []Regression
	// Notes are differences worth knowing that are not regressions.
	Notes []string
	// limits are the limits the figures are judged by.
	limits Limits
}

// Delta is one figure in the baseline and in the current run; nil means
// not measured there.
type Delta struct {
	Kind     string
	Name     string
	Baseline *float64
	Current  *float64
	// Gated says whether a drop of the figure can be a regression (every
	// axis, the levels required in either run); Limit is then the largest
	// drop that is not one.
	Gated bool
	Limit float64
}

// Regression is a figure that dropped by more than its limit.
type Regression struct {
	Kind     string
	Name     string
	Baseline float64
	Current  float64
	// Limit is the largest drop that would not have been a regression.
	Limit float64
}

// Limits are the largest drops that are not regressions, by axis name and
// by level, as fractions (0.02 = 2 pp). A figure without a limit uses
// Default, or DefaultMinEffect when Default is nil. A limit makes an
// informational level (not required in either run, or quirk) gated.
type Limits struct {
	Axes    map[string]float64
	Levels  map[Level]float64
	Default *float64
}

// limit returns the limit of a figure and whether one was given.
func (l Limits) limit(kind, name string) (float64, bool) {
	var v float64
	var ok bool
	switch kind {
	case KindAxis:
		v, ok = l.Axes[name]
	case KindLevel:
		v, ok = l.Levels[Level(name)]
	}
	if !ok {
		if l.Default != nil {
			return *l.Default, false
		}
		return DefaultMinEffect, false
	}
	return v, true
}

// Drop returns how much the figure fell, as a fraction (0.07 = 7 pp).
func (r Regression) Drop() float64 {
	return r.Baseline - r.Current
}

// CompareLimits sets the current scorecard against a baseline (tbbench
// compare, through package regress). Every axis score and every level pass
// rate becomes a Delta. When the machine fingerprints agree, an axis score,
// or the pass rate of a level that is required in either run, that fell by
// more than its limit (see Limits) is a Regression.
// Figures measured on one side only, and differences of target, kernel,
// memory or harness, are noted.
func CompareLimits(baseline, current Scorecard, limits Limits) Comparison {
	c := Comparison{
		limits:     limits,
		Comparable: baseline.Machine.SameFingerprint(current.Machine),
		Baseline:   baseline.Machine.Fingerprint(),
		Current:    current.Machine.Fingerprint(),
	}
	if !c.Comparable {
		c.Notes = append(c.Notes, fmt.Sprintf("incomparable: the baseline ran on %s, this run on %s; nothing is gated",
			c.Baseline, c.Current))
	}
	c.Notes = append(c.Notes, contextNotes(baseline, current)...)
	c.compareAxes(baseline.Axes, current.Axes)
	c.compareLevels(levelsOf(baseline), levelsOf(current))
	return c
}

// keysOf returns the distinct keys of the items of base and then cur, in the
// order they first appear.
func keysOf[T any, K comparable](base, cur []T, key func(T) K) []K {
	var keys []K
	for _, x := range append(slices.Clone(base), cur...) {
		if k := key(x); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// compareAxes adds the axis deltas and regressions.
func (c *Comparison) compareAxes(base, cur []Axis) {
	for _, name := range keysOf(base, cur, func(a Axis) string { return a.Name }) {
		b, c2 := axisScore(base, name), axisScore(cur, name)
		c.add(KindAxis, name, b, c2, true)
	}
}

// compareLevels adds the level deltas and the regressions of the levels
// required in either run.
func (c *Comparison) compareLevels(base, cur []LevelResult) {
	for _, name := range keysOf(base, cur, func(l LevelResult) Level { return l.Level }) {
		bl, bok := findLevel(base, name)
		cl, cok := findLevel(cur, name)
		_, limited := c.limits.limit(KindLevel, string(name))
		required := (bok && bl.gated()) || (cok && cl.gated()) || limited
		c.add(KindLevel, string(name), passRate(bl, bok), passRate(cl, cok), required)
	}
}

// add records a delta and, when gated and comparable, a regression; a
// figure measured on one side only is noted when gated.
func (c *Comparison) add(kind, name string, base, cur *float64, gated bool) {
	limit, _ := c.limits.limit(kind, name)
	d := Delta{Kind: kind, Name: name, Baseline: base, Current: cur, Gated: gated}
	if gated {
		d.Limit = limit
	}
	c.Deltas = append(c.Deltas, d)
	switch {
	case !gated:
	case base != nil && cur == nil:
		c.Notes = append(c.Notes, fmt.Sprintf("%s %s was measured in the baseline but not in this run", kind, name))
	case base == nil && cur != nil:
		c.Notes = append(c.Notes, fmt.Sprintf("%s %s is measured in this run but not in the baseline", kind, name))
	case base != nil && cur != nil && c.Comparable && *base-*cur > limit+tolerance:
		c.Regressions = append(c.Regressions, Regression{Kind: kind, Name: name, Baseline: *base, Current: *cur, Limit: limit})
	}
}

// contextNotes notes the differences between the two runs that do not
// decide comparability.
func contextNotes(b, c Scorecard) []string {
	var notes []string
	diff := func(what, x, y string) {
		if x != y {
			notes = append(notes, fmt.Sprintf("%s differs: baseline %q, this run %q", what, x, y))
		}
	}
	diff("target", b.Target.Name, c.Target.Name)
	diff("transport", b.Target.Transport, c.Target.Transport)
	diff("storage", b.Target.Storage, c.Target.Storage)
	diff("server version", b.Target.ServerVersion, c.Target.ServerVersion)
	diff("harness version", b.Harness.Version, c.Harness.Version)
	diff("Go version", b.Harness.GoVersion, c.Harness.GoVersion)
	diff("kernel", b.Machine.Kernel, c.Machine.Kernel)
	if b.Machine.MemoryBytes != c.Machine.MemoryBytes {
		notes = append(notes, fmt.Sprintf("memory differs: baseline %d bytes, this run %d bytes",
			b.Machine.MemoryBytes, c.Machine.MemoryBytes))
	}
	return notes
}

// axisScore returns the score of the named axis, nil when absent or not
// measured.
func axisScore(axes []Axis, name string) *float64 {
	for _, a := range axes {
		if a.Name == name {
			return a.Score
		}
	}
	return nil
}

// levelsOf returns the correctness levels of a scorecard.
func levelsOf(s Scorecard) []LevelResult {
	a, _ := s.Axis(AxisCorrectness)
	return a.Levels
}

// findLevel returns the result of the named level.
func findLevel(levels []LevelResult, name Level) (LevelResult, bool) {
	for _, l := range levels {
		if l.Level == name {
			return l, true
		}
	}
	return LevelResult{}, false
}

// passRate returns the pass rate of a level, nil when absent or empty.
func passRate(l LevelResult, ok bool) *float64 {
	if !ok {
		return nil
	}
	r, ok := l.PassRate()
	if !ok {
		return nil
	}
	return &r
}
