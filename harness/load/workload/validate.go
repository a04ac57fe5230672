package workload

import (
	"fmt"
	"slices"
	"time"

	"github.com/thoughtbox-bench/tbbench/harness/load/threshold"
)

// Limits of the values a workload may hold.
const (
	// MaxThoughtBytes is the largest thought text, well below the reference
	// server's default 4 MiB body limit.
	MaxThoughtBytes = 1 << 20
	// MaxListLimit is the largest limit `session list` accepts.
	MaxListLimit = 100
)

// Validate checks a workload built in code the way Parse checks a file:
// ranges, min ≤ max, probabilities in [0, 1], every tier's fields for its
// model. The errors carry no line numbers.
func (w *Workload) Validate() error {
	p := &problems{file: w.Source}
	if p.file == "" {
		p.file = "workload"
	}
	validate(w, func(string) int { return 0 }, p)
	return p.err()
}

// checker reports problems at the line of a field path.
type checker struct {
	p    *problems
	line func(path string) int
}

func (c checker) add(path, format string, a ...any) {
	c.p.add(c.line(path), path, format, a...)
}

func validate(w *Workload, line func(string) int, p *problems) {
	c := checker{p: p, line: line}
	c.session("session", w.Session)
	for _, name := range TierNames {
		t, ok := w.Tiers[name]
		if !ok {
			c.add("tiers."+name, "missing")
			continue
		}
		c.tier("tiers."+name, t)
	}
	for name := range w.Tiers {
		if !slices.Contains(TierNames, name) {
			c.add("tiers."+name, "unknown tier (want one of %s)", tierList())
		}
	}
}

func (c checker) session(path string, s Session) {
	c.intRange(path+".thoughts", s.Thoughts, 1, 0)
	c.intRange(path+".thoughtBytes", s.ThoughtBytes, 1, MaxThoughtBytes)
	c.durationRange(path+".thinkTime", s.ThinkTime)
	for _, pr := range []struct {
		name string
		v    float64
	}{
		{"branch", s.Branch}, {"branchContinue", s.BranchContinue}, {"revision", s.Revision},
		{"readThoughts", s.ReadThoughts}, {"getStructure", s.GetStructure},
		{"sessionList", s.SessionList}, {"sessionGet", s.SessionGet},
	} {
		if pr.v < 0 || pr.v > 1 {
			c.add(path+"."+pr.name, "a probability must be in [0, 1], not %v", pr.v)
		}
	}
	if s.ListLimit < 1 || s.ListLimit > MaxListLimit {
		c.add(path+".listLimit", "must be in 1 … %d, not %d", MaxListLimit, s.ListLimit)
	}
}

// intRange checks lo ≤ min ≤ max (≤ hi when hi > 0).
func (c checker) intRange(path string, r IntRange, lo, hi int) {
	if r.Min < lo {
		c.add(path+".min", "must be ≥ %d, not %d", lo, r.Min)
	}
	if r.Max < r.Min {
		c.add(path+".max", "must be ≥ min (%d)", r.Min)
	}
	if hi > 0 && r.Max > hi {
		c.add(path+".max", "must be ≤ %d, not %d", hi, r.Max)
	}
}

func (c checker) durationRange(path string, r DurationRange) {
	if r.Min < 0 {
		c.add(path+".min", "must not be negative")
	}
	if r.Max < r.Min {
		c.add(path+".max", "must be ≥ min (%s)", r.Min)
	}
}

func (c checker) tier(path string, t Tier) {
	if t.Rounds < 1 {
		c.add(path+".rounds", "must be ≥ 1, not %d", t.Rounds)
	}
	c.thresholds(path+".thresholds", t.Thresholds)
	c.thresholds(path+".ceiling", t.Ceiling)
	for _, x := range t.Ceiling {
		if x.Selector.Kind() == threshold.Ratio {
			c.add(path+".ceiling."+x.Selector.String(), "the ceiling is held to absolute figures; a ratio belongs in thresholds")
		}
	}
	switch t.Name {
	case Smoke, Regression, Soak:
		c.loadModel(path, t)
	case Stress:
		c.stress(path, t)
	case LongSession:
		if t.Thoughts < 2 {
			c.add(path+".thoughts", "must be ≥ 2, not %d", t.Thoughts)
		}
		if t.Window < 1 {
			c.add(path+".window", "must be ≥ 1, not %d", t.Window)
		} else if 2*t.Window > t.Thoughts {
			c.add(path+".window", "the first and the last %d thoughts overlap in a session of %d; must be ≤ thoughts/2", t.Window, t.Thoughts)
		}
	case Listing:
		if len(t.Sessions) == 0 {
			c.add(path+".sessions", "required: the numbers of stored sessions to measure at, as in [1000, 10000]")
		}
		for i, n := range t.Sessions {
			p := fmt.Sprintf("%s.sessions[%d]", path, i)
			if n < 1 {
				c.add(p, "must be ≥ 1, not %d", n)
			} else if i > 0 && n <= t.Sessions[i-1] {
				c.add(p, "must be more than the previous number (%d)", t.Sessions[i-1])
			}
		}
		if t.Samples < 1 {
			c.add(path+".samples", "must be ≥ 1, not %d", t.Samples)
		}
	}
}

// loadModel checks the fields of a tier's model: the ones it needs and the
// ones that belong to other models.
func (c checker) loadModel(path string, t Tier) {
	only := func(field string, given bool, models string) {
		if given {
			c.add(path+"."+field, "only for the %s (this tier's model is %s)", models, t.Model)
		}
	}
	positive := func(field string, v float64) {
		if v <= 0 {
			c.add(path+"."+field, "required for the %s model: must be > 0", t.Model)
		}
	}
	switch t.Model {
	case Closed:
		positive("users", float64(t.Users))
		positive("duration", float64(t.Duration))
		only("rate", t.Rate != 0, "open and ramping models")
		only("stages", t.Stages != nil, "ramping model")
		only("maxUsers", t.MaxUsers != 0, "open and ramping models")
	case Open:
		positive("rate", t.Rate)
		positive("duration", float64(t.Duration))
		positive("maxUsers", float64(t.MaxUsers))
		only("users", t.Users != 0, "closed model")
		only("stages", t.Stages != nil, "ramping model")
	case Ramping:
		positive("maxUsers", float64(t.MaxUsers))
		only("users", t.Users != 0, "closed model")
		if t.Rate < 0 {
			c.add(path+".rate", "the starting rate must not be negative")
		}
		if len(t.Stages) == 0 {
			c.add(path+".stages", "required for the ramping model: at least one {target, duration}")
		}
		var total time.Duration
		for i, s := range t.Stages {
			p := fmt.Sprintf("%s.stages[%d]", path, i)
			if s.Target < 0 {
				c.add(p+".target", "must not be negative")
			}
			if s.Duration <= 0 {
				c.add(p+".duration", "must be > 0")
			}
			total += s.Duration
		}
		if t.Duration != total {
			c.add(path+".duration", "a ramping tier lasts as long as its stages (%s); do not give a duration", total)
		}
	case "":
		c.add(path+".model", "required: closed, open or ramping")
	default:
		c.add(path+".model", "unknown model %q (want closed, open or ramping)", t.Model)
	}
}

func (c checker) stress(path string, t Tier) {
	if t.Model != Open {
		c.add(path+".model", "the stress ladder is open-loop; model must be open")
	}
	if t.MaxUsers < 1 {
		c.add(path+".maxUsers", "required: the pool of virtual users, ≥ 1")
	}
	l := t.Ladder
	if l == nil {
		c.add(path+".ladder", "required: {start, factor, steps, stepDuration, slo} or {rates, stepDuration, slo}")
		return
	}
	path += ".ladder"
	if len(l.Rates) > 0 {
		if l.Start != 0 || l.Factor != 0 || l.Steps != 0 {
			c.add(path+".rates", "give either rates or start, factor and steps, not both")
		}
		for i, r := range l.Rates {
			p := fmt.Sprintf("%s.rates[%d]", path, i)
			if r <= 0 {
				c.add(p, "must be > 0, not %v", r)
			} else if i > 0 && r <= l.Rates[i-1] {
				c.add(p, "must be more than the previous rate (%v)", l.Rates[i-1])
			}
		}
	} else {
		if l.Start <= 0 {
			c.add(path+".start", "required: the first rate, > 0 (or give rates)")
		}
		if l.Factor <= 1 {
			c.add(path+".factor", "required: the factor from one rate to the next, > 1 (or give rates)")
		}
		if l.Steps < 1 {
			c.add(path+".steps", "required: the number of rates, ≥ 1 (or give rates)")
		}
	}
	if l.StepDuration <= 0 {
		c.add(path+".stepDuration", "required: how long each rate is held, > 0")
	}
	if len(l.SLO) == 0 {
		c.add(path+".slo", "required: the thresholds a sustainable rate passes, as in latency: [p(99)<5ms]")
	}
	c.thresholds(path+".slo", l.SLO)
}

// thresholds checks thresholds built in code (a file's were checked as they
// were parsed).
func (c checker) thresholds(path string, ts []threshold.Threshold) {
	for _, t := range ts {
		p := path + "." + t.Selector.String()
		if _, err := threshold.Parse(t.Selector.String(), t.Expression.Text); err != nil {
			c.add(p, "%v", err)
		}
		if op, ok := t.Selector.Tags["op"]; ok && !slices.Contains(Ops, Op(op)) {
			c.add(p, "unknown op %q", op)
		}
		if t.DelayAbortEval < 0 {
			c.add(p, "delayAbortEval must not be negative")
		}
	}
}
