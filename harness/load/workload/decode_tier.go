package workload

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/thoughtbox-bench/tbbench/harness/load/threshold"
)

// loadModelFields are the fields of the tiers that take any load model.
var loadModelFields = []string{"model", "users", "rate", "stages", "duration", "maxUsers", "rounds", "warmup", "sideBySide", "thresholds", "ceiling"}

// tierFields lists the fields each tier accepts, in the order files and the
// README show them.
var tierFields = map[string][]string{
	Smoke:       loadModelFields,
	Regression:  loadModelFields,
	Soak:        loadModelFields,
	Stress:      {"model", "maxUsers", "rounds", "warmup", "ladder", "thresholds"},
	LongSession: {"thoughts", "window", "thresholds"},
	Listing:     {"sessions", "samples", "thresholds"},
}

// newTier returns the starting point of a tier given in a file: no fields
// set, one round, and the model the tier implies.
func newTier(name string) Tier {
	t := Tier{Name: name, Rounds: 1}
	switch name {
	case Stress:
		t.Model = Open
	case LongSession, Listing:
		t.Model, t.Users = Closed, 1
	}
	return t
}

func (d *decoder) tiers(n *yaml.Node, path string, w *Workload) {
	fields, _ := d.mapping(n, path, TierNames)
	for _, f := range fields {
		t := newTier(f.key)
		d.tier(f.value, f.path, &t)
		w.Tiers[f.key] = t
	}
}

func (d *decoder) tier(n *yaml.Node, path string, t *Tier) {
	fields, ok := d.mapping(n, path, tierFields[t.Name])
	if !ok {
		return
	}
	for _, f := range fields {
		switch f.key {
		case "model":
			d.model(f.value, f.path, t)
		case "users":
			into(&t.Users, d.int, f)
		case "rate":
			into(&t.Rate, d.float, f)
		case "stages":
			d.stages(f.value, f.path, t)
		case "duration":
			into(&t.Duration, d.duration, f)
		case "maxUsers":
			into(&t.MaxUsers, d.int, f)
		case "rounds":
			into(&t.Rounds, d.int, f)
		case "warmup":
			into(&t.Warmup, d.duration, f)
		case "sideBySide":
			into(&t.SideBySide, d.bool, f)
		case "ladder":
			t.Ladder = &Ladder{}
			d.ladder(f.value, f.path, t.Ladder)
		case "thoughts":
			into(&t.Thoughts, d.int, f)
		case "window":
			into(&t.Window, d.int, f)
		case "sessions":
			t.Sessions = append(t.Sessions, each(d, f, d.int)...)
		case "samples":
			into(&t.Samples, d.int, f)
		case "thresholds":
			t.Thresholds = d.thresholds(f.value, f.path)
		case "ceiling":
			t.Ceiling = d.thresholds(f.value, f.path)
			for _, c := range t.Ceiling {
				if c.Selector.Kind() == threshold.Ratio {
					d.add(d.lines[f.path+"."+c.Selector.String()], f.path, "the ceiling is held to absolute figures; %s compares subjects and belongs in thresholds", c.Selector)
				}
			}
		}
	}
	if t.Model == Ramping {
		if l, given := d.lines[path+".duration"]; given {
			d.add(l, path+".duration", "a ramping tier lasts as long as its stages; do not give a duration")
		}
		t.Duration = 0
		for _, s := range t.Stages {
			t.Duration += s.Duration
		}
	}
}

func (d *decoder) model(n *yaml.Node, path string, t *Tier) {
	v, ok := d.string(n, path)
	if !ok {
		return
	}
	models := []Model{Closed, Open, Ramping}
	if t.Name == Stress {
		models = []Model{Open}
	}
	if !slices.Contains(models, Model(v)) {
		names := make([]string, len(models))
		for i, m := range models {
			names[i] = string(m)
		}
		d.fail(n, path, "unknown model %q (want %s)", v, strings.Join(names, ", "))
		return
	}
	t.Model = Model(v)
}

func (d *decoder) stages(n *yaml.Node, path string, t *Tier) {
	items, _ := d.list(n, path)
	t.Stages = []Stage{}
	for i, e := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		fields, ok := d.mapping(e, p, []string{"target", "duration"})
		if !ok {
			continue
		}
		var s Stage
		for _, f := range fields {
			if f.key == "target" {
				into(&s.Target, d.float, f)
			} else {
				into(&s.Duration, d.duration, f)
			}
		}
		t.Stages = append(t.Stages, s)
	}
}

func (d *decoder) ladder(n *yaml.Node, path string, l *Ladder) {
	fields, _ := d.mapping(n, path, []string{"start", "factor", "steps", "rates", "stepDuration", "slo"})
	for _, f := range fields {
		switch f.key {
		case "start":
			into(&l.Start, d.float, f)
		case "factor":
			into(&l.Factor, d.float, f)
		case "steps":
			into(&l.Steps, d.int, f)
		case "rates":
			l.Rates = append(l.Rates, each(d, f, d.float)...)
		case "stepDuration":
			into(&l.StepDuration, d.duration, f)
		case "slo":
			l.SLO = d.thresholds(f.value, f.path)
		}
	}
}

// thresholds decodes k6-style thresholds: a mapping from metric selector to a
// list of expressions, each a string or {threshold, abortOnFail,
// delayAbortEval}. A single expression may stand without the list.
func (d *decoder) thresholds(n *yaml.Node, path string) []threshold.Threshold {
	fields, _ := d.mapping(n, path, nil)
	ts := []threshold.Threshold{}
	for _, f := range fields {
		sel, err := threshold.ParseSelector(f.key)
		if err != nil {
			d.add(d.lines[f.path], f.path, "%v", err)
			continue
		}
		if op, ok := sel.Tags["op"]; ok && !slices.Contains(Ops, Op(op)) {
			d.add(d.lines[f.path], f.path, "unknown op %q (want one of %s)", op, opList())
			continue
		}
		items := []*yaml.Node{f.value}
		if v := resolve(f.value); v.Kind == yaml.SequenceNode {
			items, _ = d.list(v, f.path)
		}
		for i, e := range items {
			p := fmt.Sprintf("%s[%d]", f.path, i)
			if t, ok := d.threshold(e, p, sel); ok {
				ts = append(ts, t)
			}
		}
	}
	return ts
}

func (d *decoder) threshold(n *yaml.Node, path string, sel threshold.Selector) (threshold.Threshold, bool) {
	t := threshold.Threshold{Selector: sel}
	var text *yaml.Node
	if n = resolve(n); n.Kind == yaml.MappingNode {
		fields, _ := d.mapping(n, path, []string{"threshold", "abortOnFail", "delayAbortEval"})
		for _, f := range fields {
			switch f.key {
			case "threshold":
				text = f.value
			case "abortOnFail":
				into(&t.AbortOnFail, d.bool, f)
			case "delayAbortEval":
				into(&t.DelayAbortEval, d.duration, f)
			}
		}
		if text == nil {
			d.fail(n, path+".threshold", "missing: give the expression, as in p(99)<5ms")
			return t, false
		}
		path += ".threshold"
	} else {
		text = n
	}
	s, ok := d.string(text, path)
	if !ok {
		return t, false
	}
	expr, err := threshold.ParseExpression(sel.Kind(), s)
	if err != nil {
		d.fail(text, path, "%v", err)
		return t, false
	}
	t.Expression = expr
	return t, true
}
